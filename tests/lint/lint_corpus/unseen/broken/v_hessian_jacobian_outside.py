import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as h:
    with tf.GradientTape() as g:
        f = tf.reduce_sum(x ** 3) + x[0] * x[1]
grad = g.gradient(f, x)  # <- GT008
result = h.jacobian(grad, x)
