import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    x_copy = tf.identity(x)
    loss = tf.reduce_sum(x_copy ** 2)
result = tape.gradient(loss, x)
