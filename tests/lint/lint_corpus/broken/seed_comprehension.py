# The seed question: y iterated after the tape block; every row comes back zero.
import tensorflow as tf

x = [tf.constant(3.0), tf.constant(4.0), tf.constant(5.0)]
with tf.GradientTape(persistent=True) as g:
    g.watch(x)
    y_as_list = [x[0] * x[1] * x[2], x[0] * x[1] * x[2] * x[0]]
    y_as_tensor = tf.stack(y_as_list, axis=0)
result = [g.gradient(y_i, x, unconnected_gradients=tf.UnconnectedGradients.ZERO) for y_i in y_as_tensor]  # <- GT001
