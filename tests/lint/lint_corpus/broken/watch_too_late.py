import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x ** 2)
    tape.watch(x)  # <- GT003
result = tape.gradient(y, x)
