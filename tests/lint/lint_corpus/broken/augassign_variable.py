import tensorflow as tf

bias = tf.Variable(0.0)
bias += 1.0  # <- GT005
with tf.GradientTape() as tape:
    y = bias * 2.0
result = tape.gradient(y, bias)
