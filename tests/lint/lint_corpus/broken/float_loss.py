import tensorflow as tf

w = tf.Variable(2.0)
with tf.GradientTape() as tape:
    loss = float(w * w + 1.0)  # <- GT002
result = tape.gradient(loss, w)
