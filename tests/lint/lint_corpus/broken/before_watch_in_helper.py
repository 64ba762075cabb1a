import tensorflow as tf


def energy(p):
    return tf.reduce_sum(p ** 2)


position = tf.constant([1.0, -2.0])
e = energy(position)  # <- GT007
with tf.GradientTape() as tape:
    tape.watch(position)
    total = e * 1.0
result = tape.gradient(total, position)
