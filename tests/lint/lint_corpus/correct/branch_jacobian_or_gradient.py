import tensorflow as tf

use_jacobian = True
x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x ** 3
if use_jacobian:
    g = tape.jacobian(y, x)
else:
    g = tape.gradient(y, x)
result = g
