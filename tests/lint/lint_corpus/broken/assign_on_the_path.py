import tensorflow as tf

x = tf.Variable([1.0, 2.0])
hidden = tf.Variable([0.0, 0.0])
with tf.GradientTape() as tape:
    hidden.assign(tf.tanh(x))  # <- GT012
    loss = tf.reduce_sum(hidden ** 2)
result = tape.gradient(loss, x)
