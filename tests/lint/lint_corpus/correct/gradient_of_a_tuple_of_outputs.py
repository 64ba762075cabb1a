import tensorflow as tf


def circuit(params):
    return params[0] ** 2, params[1:] ** 3


x = tf.Variable([0.1, 0.2, 0.3])
with tf.GradientTape() as tape:
    out = circuit(x)
result = tape.gradient(out, x)
