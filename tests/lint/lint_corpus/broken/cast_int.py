import tensorflow as tf

v = tf.Variable([1.5, 2.5])
with tf.GradientTape() as tape:
    as_int = tf.cast(v, tf.int32)  # <- GT010
    y = tf.reduce_sum(tf.cast(as_int, tf.float32) * 2.0)
result = tape.gradient(y, v)
