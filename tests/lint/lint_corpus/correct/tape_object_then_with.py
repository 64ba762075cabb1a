import tensorflow as tf

x = tf.Variable([1.0, 2.0])
tape = tf.GradientTape()
with tape:
    y = tf.reduce_sum(tf.sin(x))
result = tape.gradient(y, x)
