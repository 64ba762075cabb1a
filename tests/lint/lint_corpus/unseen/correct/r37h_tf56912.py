import tensorflow as tf


def circuit(params):
    return params[0] ** 2, params[1::] ** 3


x = tf.Variable([0.1, 0.2, 0.3])
with tf.GradientTape() as tape:
    out = circuit(x)
    flat = tf.concat([tf.reshape(out[0], [1]), out[1]], axis=0)
result = tape.jacobian(flat, x)
