import numpy as np
import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
X = np.array([[1.0, 2.0, 5.0], [1.0, 1.0, 3.0], [1.0, 4.0, 2.0], [1.0, 5.0, 2.0], [1.0, 3.0, 1.0]])
y = np.array([1.0, 0.0, 1.0, 1.0, 0.0])
beta = tf.Variable(np.random.randn(1, 3), trainable=True)
optimizer = tf.keras.optimizers.Adam(0.01)
with tf.GradientTape() as tape:
    y_dist = tfd.Poisson(rate=tf.exp(tf.matmul(beta, tf.transpose(X))))
    loss = -tf.reduce_mean(y_dist.log_prob(y))
grads = tape.gradient(loss, [beta])
optimizer.apply_gradients(zip(grads, [beta]))
result = grads
