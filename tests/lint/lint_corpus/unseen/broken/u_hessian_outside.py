import tensorflow as tf

p = tf.Variable([1.0, 2.0])
with tf.GradientTape() as t2:
    with tf.GradientTape() as t1:
        f = tf.reduce_sum(p ** 3)
g = t1.gradient(f, p)  # <- GT008
result = t2.jacobian(g, p)
