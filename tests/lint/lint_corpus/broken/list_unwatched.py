import tensorflow as tf

xs = [tf.constant(1.0), tf.constant(2.0)]
with tf.GradientTape() as g:  # <- GT003
    y = xs[0] * xs[1] + xs[1] ** 2
result = g.gradient(y, xs)
