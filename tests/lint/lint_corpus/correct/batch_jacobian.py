import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.tanh(x) * 2.0
result = tape.batch_jacobian(y, x)
