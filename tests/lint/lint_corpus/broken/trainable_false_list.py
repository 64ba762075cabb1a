import tensorflow as tf

w = tf.Variable([1.0, 2.0])
b = tf.Variable(0.5, trainable=False)  # <- GT009
x = tf.constant([3.0, 4.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w * x) + b * b
result = tape.gradient(loss, [w, b])
