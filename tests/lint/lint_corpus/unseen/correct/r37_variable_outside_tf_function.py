import tensorflow as tf

b = tf.Variable(12.0)


@tf.function
def f():
    a = tf.constant([[10.0, 10.0], [11.0, 1.0]])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.matmul(a, a) + b)
    return tape.gradient(y, b)


result = f()
