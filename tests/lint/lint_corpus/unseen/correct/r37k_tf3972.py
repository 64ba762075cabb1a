import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0])
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        f = tf.reduce_sum(x ** 3)
    g = inner.gradient(f, x)
result = outer.jacobian(g, x)
