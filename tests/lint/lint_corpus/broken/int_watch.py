import tensorflow as tf

n = tf.constant([1, 2, 3])
with tf.GradientTape() as tape:
    tape.watch(n)  # <- GT004
    y = tf.reduce_sum(tf.cast(n, tf.float32) ** 2)
result = tape.gradient(y, n)
