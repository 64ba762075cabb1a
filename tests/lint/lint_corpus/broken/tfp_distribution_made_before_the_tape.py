import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
log_rate = tf.Variable(0.3)
prior = tfd.Gamma(concentration=2.0, rate=tf.nn.softplus(log_rate))  # <- GT007
with tf.GradientTape() as tape:
    loss = -prior.log_prob(1.2)
result = tape.gradient(loss, log_rate)
