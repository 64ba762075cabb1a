import tensorflow as tf

scores = tf.data.Dataset.from_tensor_slices(tf.constant([1.0, 2.0, 4.0]))
w = tf.Variable(0.5)
with tf.GradientTape() as tape:
    loss = scores.reduce(tf.constant(0.0), lambda total, s: total + (s * w - 1.0) ** 2)  # <- GT010
result = tape.gradient(loss, w)
