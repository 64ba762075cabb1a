import tensorflow as tf
import tensorflow_probability as tfp

rate = tfp.util.TransformedVariable(1.5, tfp.bijectors.Exp())
with tf.GradientTape() as tape:
    loss = tf.square(rate - 1.0)
result = tape.gradient(loss, rate)  # <- GT017
