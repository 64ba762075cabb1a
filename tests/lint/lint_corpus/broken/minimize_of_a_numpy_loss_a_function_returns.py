import numpy as np
import tensorflow as tf


def distance(target, output):
    return np.mean(np.square(target - output))


w = tf.Variable(np.ones((3, 1)), dtype=tf.float32)
x = np.random.rand(4, 3).astype("float32")
target = np.random.rand(4, 1).astype("float32")
optimizer = tf.keras.optimizers.SGD(0.1)
optimizer.minimize(distance(target, tf.matmul(x, w)), var_list=[w])  # <- GT013
result = w
