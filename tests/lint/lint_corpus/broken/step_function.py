import tensorflow as tf

x = tf.Variable([-1.0, 2.0])
with tf.GradientTape() as tape:
    mask = tf.cast(x > 0.0, tf.float32)  # <- GT010
    y = tf.reduce_sum(mask)
result = tape.gradient(y, x)
