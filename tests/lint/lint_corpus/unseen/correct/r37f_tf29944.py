import numpy as np
import tensorflow as tf

N = 100
n = 4
np.random.seed(0)
X = tf.Variable(np.random.randn(n, 1))
C = tf.constant(np.random.randn(N, n))
D = tf.constant(np.random.randn(N, 1))


def f_batch_tensorflow():
    return tf.reduce_sum(tf.square(tf.matmul(C, X) - D))


optimizer = tf.compat.v1.train.AdamOptimizer(0.1)
optimizer.minimize(f_batch_tensorflow, var_list=[X])
result = [X]
