import tensorflow as tf


@tf.custom_gradient
def grad(x, dy):
    def grad2(dx2):
        return 1.0 * dx2, 2.0 * dx2
    return 5.0 * dy, grad2


@tf.custom_gradient
def op(x):
    return x * 5, lambda dy: grad(x, dy)


x = tf.random.normal((1,))
with tf.GradientTape() as tape:
    tape.watch(x)
    with tf.GradientTape() as tape2:
        tape2.watch(x)
        y = op(x)
    dydx = tape2.gradient(y, x)
result = tape.gradient(dydx, x)
