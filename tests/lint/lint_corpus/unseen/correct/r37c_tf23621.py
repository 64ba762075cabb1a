import tensorflow as tf

w = tf.Variable(tf.ones((3, 2)))
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    hidden = tf.matmul(x, w)
    loss = tf.reduce_sum(hidden ** 2)
result = tape.gradient(loss, w)
