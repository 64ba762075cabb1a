import tensorflow as tf

v = tf.Variable(3, dtype=tf.float32)
with tf.GradientTape() as tape:
    y = v * v
result = tape.gradient(y, v)
