import tensorflow as tf

x = tf.Variable([1.0, 1.0])
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        f = 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2
    grad = inner.gradient(f, x)
hessian_matrix = outer.jacobian(grad, x)
result = hessian_matrix
