import tensorflow as tf

w = tf.Variable([0.5, -0.5])
penalty = 0.01 * tf.reduce_sum(w ** 2)
x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum((w * x - 1.0) ** 2) + penalty
result = tape.gradient(loss, w)
