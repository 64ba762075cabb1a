import tensorflow as tf

x = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch(x)
    y = x * x + tf.stop_gradient(x) * 10.0
result = tape.gradient(y, x)
