import tensorflow as tf

params = tf.Variable([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    wrapped = tf.identity(params)
    loss = tf.reduce_sum(wrapped ** 2)
result = tape.gradient(loss, wrapped)
