import numpy as np
import tensorflow as tf

w = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    prod = np.array(w) @ np.ones((2, 1), dtype=np.float32)  # <- GT002
    loss = tf.reduce_sum(tf.convert_to_tensor(prod))
result = tape.gradient(loss, w)
