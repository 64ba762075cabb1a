import tensorflow as tf
import tensorflow_probability as tfp

log_rate = tf.Variable(0.4)
rate = tfp.util.DeferredTensor(log_rate, tf.exp)
with tf.GradientTape() as tape:
    loss = tf.square(rate - 1.0)
result = tape.gradient(loss, log_rate)
