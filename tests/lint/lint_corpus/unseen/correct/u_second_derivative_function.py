import tensorflow as tf


def second_derivative(f, x):
    with tf.GradientTape() as t2:
        t2.watch(x)
        with tf.GradientTape() as t1:
            t1.watch(x)
            y = f(x)
        dy = t1.gradient(y, x)
    return t2.gradient(dy, x)


result = second_derivative(lambda v: v ** 4, tf.constant(1.5))
