import tensorflow as tf

x = tf.constant([1.0, 2.0])
y = x * x
result = tf.gradients(y, x)  # <- GT018
