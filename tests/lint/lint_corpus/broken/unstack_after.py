import tensorflow as tf

x = tf.constant([2.0, 3.0])
with tf.GradientTape(persistent=True) as t:
    t.watch(x)
    y = x ** 3
pieces = tf.unstack(y)  # <- GT001
result = [t.gradient(p, x) for p in pieces]
