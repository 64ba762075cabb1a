import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
loc_1 = tf.Variable([38.6], trainable=True)
logscale_1 = tf.Variable([2.3], trainable=True)
with tf.GradientTape() as tape:
    normal = tfd.Normal(loc=loc_1, scale=tf.exp(logscale_1))
    ll = tf.reduce_sum(normal.log_prob(3.0))
result = tape.gradient(ll, [loc_1, logscale_1])
