import tensorflow as tf

w = tf.Variable([[0.5], [-0.5]])
x = tf.random.normal((4, 2))
y = tf.random.normal((4, 1))
opt_app = tf.compat.v1.train.AdamOptimizer(0.01)
with tf.GradientTape() as tape:
    loss_app_only = tf.reduce_mean(tf.square(x @ w - y))
result = tape.gradient(loss_app_only, [w])
