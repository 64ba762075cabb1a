import tensorflow as tf

w = tf.Variable(tf.random.normal([3, 2]))
data = tf.random.normal([4, 3])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.matmul(data, w) ** 2)
result = tf.reshape(tape.gradient(y, w), [-1])
