import numpy as np
import tensorflow as tf

x_feed = tf.constant(np.random.randn(5, 4))
w1 = tf.Variable(initial_value=tf.random_normal_initializer()((4, 2), dtype=tf.float64))
b = tf.Variable(initial_value=tf.random_normal_initializer()((2,), dtype=tf.float64))
opt = tf.keras.optimizers.Adam(0.02)
with tf.GradientTape() as tape:
    w = w1 + w1
    logits = tf.matmul(x_feed, w) + b
    loss = tf.reduce_sum(logits)
result = tape.gradient(loss, [w1, b])
