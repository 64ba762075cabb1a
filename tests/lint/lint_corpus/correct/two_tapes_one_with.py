import tensorflow as tf

x = tf.constant(1.0)
with tf.GradientTape() as t2, tf.GradientTape() as t1:
    t2.watch(x)
    t1.watch(x)
    y = x * x * x
    dy = t1.gradient(y, x)
result = t2.gradient(dy, x)
