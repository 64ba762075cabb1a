import numpy as np
import tensorflow as tf

x = tf.Variable(np.random.random((2, 4)).astype("float32"))
indices = tf.constant([[0, 1], [1, 3]])
X = tf.constant(np.random.random((2, 4)).astype("float32"))
W = tf.Variable(np.random.random((2, 4)).astype("float32"))
b = tf.Variable(np.random.random((2,)).astype("float32"))
with tf.GradientTape() as tape:
    pred = tf.reduce_sum(X * W, axis=1) + b
    y = tf.tensor_scatter_nd_add(x, indices, pred)
    loss = tf.reduce_sum(y)
result = tape.gradient(loss, [W, b])
