import numpy as np
import tensorflow as tf

mask = tf.constant(np.array([1.0, 0.5], dtype=np.float32))


def masked_loss(v):
    return tf.reduce_sum((v * mask) ** 2)


v = tf.Variable([3.0, 4.0])
with tf.GradientTape() as tape:
    loss = masked_loss(v)
result = tape.gradient(loss, v)
