import tensorflow as tf

v = tf.Variable(13.0)
alpha = tf.Variable([1.0, 2.0, 3.0])
idx = 1
with tf.GradientTape() as tape:
    new_alpha = tf.tensor_scatter_nd_update(alpha, [[idx]], tf.reshape(v * 2.0, [1]))
    loss = tf.reduce_sum(new_alpha * new_alpha)
result = tape.gradient(loss, [v])
