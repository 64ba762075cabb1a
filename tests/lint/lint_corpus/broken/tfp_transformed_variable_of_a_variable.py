import tensorflow as tf
import tensorflow_probability as tfp

raw_scale = tf.Variable(0.7)
with tf.GradientTape() as tape:
    scale = tfp.util.TransformedVariable(raw_scale, tfp.bijectors.Softplus())  # <- GT017
    nll = -tfp.distributions.Normal(0.0, scale).log_prob(0.4)
result = tape.gradient(nll, raw_scale)
