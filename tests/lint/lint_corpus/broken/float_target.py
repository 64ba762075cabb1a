import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(x * x)
result = tape.gradient(float(y), x)  # <- GT002
