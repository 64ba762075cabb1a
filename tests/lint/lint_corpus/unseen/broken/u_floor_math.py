import tensorflow as tf

x = tf.Variable(2.7)
with tf.GradientTape() as tape:
    y = tf.math.floor(x) * 3.0  # <- GT010
result = tape.gradient(y, x)
