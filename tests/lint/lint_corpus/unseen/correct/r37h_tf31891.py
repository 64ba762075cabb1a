import tensorflow as tf


def test_tf(x):
    return x[:, 0] ** 3 + x[:, 1] ** 3


input_x = tf.constant([[2.0, 3.0]])
with tf.GradientTape() as tape:
    tape.watch(input_x)
    y = test_tf(input_x)
result = tape.gradient(y, input_x)[:, 1]
