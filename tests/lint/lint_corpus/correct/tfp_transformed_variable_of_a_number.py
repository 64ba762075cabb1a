import tensorflow as tf
import tensorflow_probability as tfp

scale = tfp.util.TransformedVariable(0.7, tfp.bijectors.Softplus())
with tf.GradientTape() as tape:
    nll = -tfp.distributions.Normal(0.0, scale).log_prob(0.4)
result = tape.gradient(nll, scale.trainable_variables)
