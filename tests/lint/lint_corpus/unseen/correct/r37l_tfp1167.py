import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
loc_1 = tf.Variable(5.0, name="loc_1")
scale_1 = tfp.util.TransformedVariable(2.0, tfp.bijectors.Exp(), name="scale_1")
with tf.GradientTape() as tape:
    dist = tfd.Normal(loc=loc_1, scale=scale_1)
    nll = -dist.log_prob(4.0)
result = tape.gradient(nll, [loc_1, *scale_1.trainable_variables])
