import tensorflow as tf
import tensorflow_probability as tfp

mu = tf.Variable(0.5)
sigma = tf.Variable(1.5)
dist = tfp.distributions.Normal(loc=mu, scale=sigma)
with tf.GradientTape() as tape:
    nll = -tf.reduce_sum(dist.log_prob([0.1, 0.7]))
result = tape.gradient(nll, [mu, sigma])
