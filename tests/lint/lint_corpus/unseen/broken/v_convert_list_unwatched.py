import tensorflow as tf

x = tf.convert_to_tensor([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:  # <- GT003
    y = tf.reduce_sum(tf.exp(x))
result = tape.gradient(y, x)
