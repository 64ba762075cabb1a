import tensorflow as tf
import tensorflow.experimental.numpy as tnp

x = tf.constant([0.5, 1.5])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tnp.sum(tnp.sin(x) * x)
result = tape.gradient(y, x)
