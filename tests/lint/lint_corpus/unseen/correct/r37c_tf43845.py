import tensorflow as tf

W = tf.Variable(1.0)
b = tf.Variable(0.0)
x = tf.constant([1.0, 2.0, 3.0, 4.0])
y = tf.constant([0.0, -1.0, -2.0, -3.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(W * x + b - y))
result = tape.gradient(loss, [W, b])
