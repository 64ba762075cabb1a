import tensorflow as tf

base = tf.Variable([[0.5, -1.0], [2.0, 0.25]])
scaled = tf.Variable(base * 2.0)  # <- GT017
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.matmul(x, scaled))
result = tape.gradient(loss, [base])
