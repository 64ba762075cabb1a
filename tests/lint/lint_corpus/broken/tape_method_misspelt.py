import tensorflow as tf

w = tf.Variable([[0.5], [-1.0]])
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
with tf.GradientTape() as tape:
    out = tf.matmul(x, w)
jac = tape.jacobians(out, w)  # <- GT027
result = jac
