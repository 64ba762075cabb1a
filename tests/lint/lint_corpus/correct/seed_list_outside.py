import tensorflow as tf

x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
    y_as_list = [x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]
result = [g.gradient(y_i, x) for y_i in y_as_list]
