import tensorflow as tf

x = tf.constant([[2.0, 3.0]])
with tf.GradientTape() as tape:
    tape.watch(x)
    column = x[:, 1]
    y = x[:, 0] ** 3 + column ** 3
result = tape.gradient(y, column)
