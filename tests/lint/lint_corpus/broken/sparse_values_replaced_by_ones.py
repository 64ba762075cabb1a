import tensorflow as tf

weights = tf.Variable([0.5, 1.5, 2.0])
idx = tf.constant([[0, 0], [1, 2], [2, 1]], dtype=tf.int64)
with tf.GradientTape() as tape:
    pattern = tf.sparse.SparseTensor(idx, tf.ones_like(weights), [3, 3])  # <- GT010
    loss = tf.reduce_sum(tf.sparse.to_dense(pattern) * 2.0)
result = tape.gradient(loss, weights)
