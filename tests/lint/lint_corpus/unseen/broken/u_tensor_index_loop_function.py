import tensorflow as tf


def per_element(tape, y, x):
    return [tape.gradient(y[i], x) for i in range(2)]


x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x ** 2
result = per_element(tape, y, x)  # <- GT001
