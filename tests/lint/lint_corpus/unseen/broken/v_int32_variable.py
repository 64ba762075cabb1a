import tensorflow as tf

k = tf.Variable([1, 2], dtype=tf.int32)  # <- GT004
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.cast(k, tf.float32) ** 2)
result = tape.gradient(y, k)
