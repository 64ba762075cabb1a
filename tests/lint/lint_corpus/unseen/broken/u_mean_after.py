import tensorflow as tf

x = tf.constant([1.0, 4.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.sqrt(x)
loss = tf.reduce_mean(y)  # <- GT011
result = tape.gradient(loss, x)
