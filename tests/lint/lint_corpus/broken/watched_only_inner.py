import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as outer:  # <- GT015
    with tf.GradientTape() as inner:
        inner.watch(x)
        y = tf.reduce_sum(tf.sin(x))
    dy_dx = inner.gradient(y, x)
result = outer.gradient(dy_dx, x)
