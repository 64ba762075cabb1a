import tensorflow as tf

n = tf.constant([1, 2, 3])
x = tf.cast(n, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(x ** 2)
result = tape.gradient(y, x)
