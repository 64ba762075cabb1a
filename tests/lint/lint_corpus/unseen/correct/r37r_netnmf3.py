import numpy as np
import tensorflow as tf

X = np.abs(np.random.randn(6, 5)).astype(np.float32)
d, alpha, max_iter = 2, 100, 10
M = (X > 0.3).astype(np.float32)
N = np.abs(np.random.rand(6, 6)).astype(np.float32)
N = (N + N.T) / 2
L = np.sum(N, axis=0) * np.eye(6, dtype=np.float32) - N
temp_H = abs(np.random.randn(d, X.shape[1]).astype(np.float32))
temp_W = abs(np.random.randn(X.shape[0], d).astype(np.float32))
mask = tf.constant(M)
A = tf.constant(X)
H = tf.Variable(temp_H)
W = tf.Variable(temp_W)
L_s = tf.constant(L)
alpha_s = tf.constant(np.float32(alpha))
with tf.GradientTape() as tape:
    WH = tf.matmul(W, H)
    cost0 = tf.reduce_sum(tf.multiply(mask, tf.pow(A - WH, 2)))
    costL = alpha_s * tf.linalg.trace(tf.matmul(tf.transpose(W), tf.matmul(L_s, W)))
    cost = cost0 + costL
grads = tape.gradient(cost, [W, H])
global_step = tf.Variable(0, trainable=False)
learning_rate = tf.compat.v1.train.exponential_decay(0.002, global_step, max_iter, 0.95, staircase=True)
optimizer = tf.compat.v1.train.AdamOptimizer(learning_rate=learning_rate, epsilon=1)
train_step = optimizer.apply_gradients(zip(grads, [W, H]), global_step=global_step)
result = grads
