import numpy as np
import tensorflow as tf


def activation(t):
    return tf.convert_to_tensor(np.exp(t.numpy()))  # <- GT002


x = tf.constant([0.0, 1.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = activation(x * 2.0)
result = tape.gradient(y, x)
