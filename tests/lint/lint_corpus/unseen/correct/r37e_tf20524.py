import tensorflow as tf

x = tf.Variable([0.2, 0.7])
with tf.GradientTape() as tape:
    q = x * 255.0
    y = tf.reduce_sum(tf.cast(q, tf.float32) / 255.0)
result = tape.gradient(y, x)
