import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.matmul(x, x)
    first_row = y[0]
result = tape.jacobian(first_row, x)
