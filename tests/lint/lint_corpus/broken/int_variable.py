import tensorflow as tf

counter = tf.Variable(3)  # <- GT004
with tf.GradientTape() as tape:
    y = tf.cast(counter, tf.float32) * 2.0
result = tape.gradient(y, counter)
