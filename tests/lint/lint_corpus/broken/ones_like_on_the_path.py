import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    mask = tf.ones_like(x * 3.0)  # <- GT010
    loss = tf.reduce_sum(mask * 2.0)
result = tape.gradient(loss, x)
