import tensorflow as tf

x = tf.Variable([-1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.sign(x) * 3.0)  # <- GT010
result = tape.gradient(y, x)
