import tensorflow as tf

w = tf.Variable([[1.0], [2.0]])
bias = tf.Variable([0.5], trainable=False)  # <- GT009
x = tf.constant([[1.0, 1.0]])
with tf.GradientTape() as tape:
    y = tf.matmul(x, w) + bias
    loss = tf.reduce_sum(y ** 2)
result = tape.gradient(loss, [w, bias])
