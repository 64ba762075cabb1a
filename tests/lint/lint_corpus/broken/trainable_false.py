import tensorflow as tf

scale = tf.Variable(2.0, trainable=False)  # <- GT009
with tf.GradientTape() as tape:
    y = scale * 3.0 + scale ** 2
result = tape.gradient(y, scale)
