import tensorflow as tf

a = tf.constant(2.0)
b = tf.constant(5.0)
with tf.GradientTape() as tape:
    c = a * b
    tape.watch(a)  # <- GT003
result = tape.gradient(c, a)
