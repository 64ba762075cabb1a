import tensorflow as tf

a = tf.constant(2.0)
b = tf.constant(3.0)
with tf.GradientTape() as tape:
    tape.watch([a, b])
    y = a * a * b
result = tape.gradient(y, [a, b])
