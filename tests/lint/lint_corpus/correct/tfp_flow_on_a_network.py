import tensorflow as tf
import tensorflow_probability as tfp

tfb, tfd = tfp.bijectors, tfp.distributions
made = tfb.AutoregressiveNetwork(params=2, hidden_units=[8])
density = tfd.TransformedDistribution(tfd.MultivariateNormalDiag(loc=[0.0, 0.0]), tfb.MaskedAutoregressiveFlow(made))
points = tf.random.normal((32, 2))
with tf.GradientTape() as tape:
    nll = -tf.reduce_mean(density.log_prob(points))
result = tape.gradient(nll, density.trainable_variables)
tf.keras.optimizers.Adam(1e-3).apply_gradients(zip(result, density.trainable_variables))
