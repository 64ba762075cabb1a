import tensorflow as tf
import tensorflow_probability as tfp

log_x = tf.Variable(0.0)
x = tfp.util.DeferredTensor(log_x, tf.exp)
with tf.GradientTape() as g:
    y = x * x
result = g.gradient(y, x.trainable_variables)
