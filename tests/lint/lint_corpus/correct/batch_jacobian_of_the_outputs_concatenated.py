import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    squares = x ** 2
    sums = tf.reduce_sum(x, axis=1, keepdims=True)
    both = tf.concat([squares, sums], axis=1)
result = tape.batch_jacobian(both, x)
