import tensorflow as tf


@tf.function
def jac(x):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(x) * x
    return tape.jacobian(y, x)


result = jac(tf.constant([0.5, 1.0]))
