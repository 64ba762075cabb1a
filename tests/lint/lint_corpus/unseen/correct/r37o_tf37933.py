import numpy as np
import tensorflow as tf

X = np.random.rand(6, 5).astype("float32")
latent_features = 8
learning_rate = 0.001
num_users = len(X)
num_items = len(X[0])
W = tf.Variable(tf.random.normal([num_users, latent_features], stddev=0.05, mean=0))
H = tf.Variable(tf.random.normal([latent_features, num_items], stddev=0.05, mean=0))
with tf.GradientTape() as tape:
    product = tf.matmul(W, H)
    diff_op = tf.math.subtract(product, X)
    cost = tf.reduce_sum(tf.square(diff_op))
opt = tf.optimizers.Adam(learning_rate=learning_rate)
grads = tape.gradient(cost, [W, H])
opt.apply_gradients(zip(grads, [W, H]))
result = grads
