import numpy as np
import tensorflow as tf

v = tf.Variable(np.random.rand(3))
with tf.GradientTape() as tape:
    tape.watch(v)
    y = tf.reduce_sum(v ** 2) + 1.0
result = tape.gradient(y, v)
