import tensorflow as tf

w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.convert_to_tensor(w) ** 2) + tf.reduce_sum(w.value())
result = tape.gradient(loss, w)
