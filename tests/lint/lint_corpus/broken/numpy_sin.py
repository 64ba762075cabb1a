import numpy as np
import tensorflow as tf

x = tf.Variable([0.5, 1.0])
with tf.GradientTape() as tape:
    y = tf.constant(np.sin(x.numpy()))  # <- GT002
    loss = tf.reduce_sum(y)
result = tape.gradient(loss, x)
