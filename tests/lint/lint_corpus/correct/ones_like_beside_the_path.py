import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    mask = tf.ones_like(x * 3.0)
    loss = tf.reduce_sum(mask * x)
result = tape.gradient(loss, x)
