import tensorflow as tf

x = tf.constant([0.4, 1.6])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(tf.round(x * 3.0))  # <- GT010
result = tape.gradient(y, x)
