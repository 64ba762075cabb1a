import tensorflow as tf

x = tf.Variable([-1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.reduce_sum(tf.where(x > 0.0, x * x, -3.0 * x))
result = tape.gradient(y, x)
