import tensorflow as tf

x = tf.Variable([1.0, 3.0])
with tf.GradientTape() as tape:
    z = tf.reduce_max(x, 0)
result = tape.gradient(z, x)
