import tensorflow as tf

w = tf.Variable(3.0)
with tf.GradientTape() as tape:
    loss = w * w + 2.0 * w
result = tape.gradient(loss, w)
