import tensorflow as tf

x = tf.constant(3.0)
with tf.GradientTape() as tape:  # <- GT003
    y = x * x
result = tape.gradient(y, x)
