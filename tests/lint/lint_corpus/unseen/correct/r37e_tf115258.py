import tensorflow as tf

x = tf.Variable([-1.0, 2.0])
with tf.GradientTape() as tape:
    y = tf.where(x > 0, x ** 2, -x)
    loss = tf.reduce_sum(y)
result = tape.gradient(loss, x)
