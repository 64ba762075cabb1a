import tensorflow as tf

base = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
start = tf.Variable(base * 2.0)
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    scaled = base * 2.0
    loss = tf.reduce_sum(tf.matmul(x, scaled)) + tf.reduce_sum(start)
result = tape.gradient(loss, [base, start])
