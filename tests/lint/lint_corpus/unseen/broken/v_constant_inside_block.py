import tensorflow as tf

with tf.GradientTape() as tape:  # <- GT003
    a = tf.constant(2.0)
    b = a ** 3
result = tape.gradient(b, a)
