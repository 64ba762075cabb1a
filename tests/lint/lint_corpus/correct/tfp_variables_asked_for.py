import tensorflow as tf
import tensorflow_probability as tfp

w = tf.Variable([[0.5, -0.2]])
x = tf.constant([[1.0, 2.0, 0.5], [0.3, 1.0, 2.0]])
observed = tf.constant([0.4, 1.1, -0.3])
with tf.GradientTape() as tape:
    likelihood = tfp.distributions.Normal(loc=tf.matmul(w, x), scale=1.0)
    nll = -tf.reduce_sum(likelihood.log_prob(observed))
result = tape.gradient(nll, [w])
tf.keras.optimizers.SGD(0.1).apply_gradients(zip(result, [w]))
