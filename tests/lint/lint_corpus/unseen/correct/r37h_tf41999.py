import tensorflow as tf

a = tf.constant([[1.0, 2.0], [2.0, 3.0]])
b = tf.constant([[1.0, 2.0], [2.0, 3.0]])
with tf.GradientTape() as tape1, tf.GradientTape() as tape2:
    tape1.watch(a)
    tape2.watch(a)
    c = a * b
    c0 = c[:, 0]
grad1 = tape1.gradient(c, a)
grad2 = tape2.gradient(c0, a)
result = [grad1, grad2]
