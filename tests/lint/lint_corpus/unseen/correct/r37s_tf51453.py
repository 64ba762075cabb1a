import numpy as np
import tensorflow as tf


def weight_fn(shape):
    w = tf.Variable(tf.random.truncated_normal(shape, stddev=0.1))
    return w


weights = [weight_fn((4, 8)), weight_fn((8, 1))]
x = np.random.rand(16, 4).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, weights[0])), weights[1]) - y))
result = tape.gradient(loss, weights)
