import tensorflow as tf

x = tf.Variable([-1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    positive = tf.where(x > 0.0)
    count = tf.cast(tf.size(positive), tf.float32)
    loss = tf.reduce_sum(x ** 2) + count
result = tape.gradient(loss, x)
