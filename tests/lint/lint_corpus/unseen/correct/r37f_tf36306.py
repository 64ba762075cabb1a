import tensorflow as tf

data = tf.range(10, dtype=tf.float32)
u = tf.Variable(1.0)
with tf.GradientTape() as g:
    loss = tf.reduce_sum((data - u) ** 2)
result = g.gradient(loss, u)
