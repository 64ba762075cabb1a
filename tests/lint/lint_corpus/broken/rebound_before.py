import tensorflow as tf

v = tf.Variable(3.0)
v = v + 1.0  # <- GT005
with tf.GradientTape() as tape:
    y = v * v
result = tape.gradient(y, v)
