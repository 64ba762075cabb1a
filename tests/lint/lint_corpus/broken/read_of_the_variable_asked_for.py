import tensorflow as tf

w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w ** 2)
result = tape.gradient(loss, tf.convert_to_tensor(w))  # <- GT017
