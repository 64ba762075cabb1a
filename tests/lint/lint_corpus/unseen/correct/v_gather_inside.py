import tensorflow as tf

table = tf.Variable([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
ids = tf.constant([0, 2])
with tf.GradientTape() as tape:
    rows = tf.gather(table, ids)
    loss = tf.reduce_sum(rows ** 2)
grad = tape.gradient(loss, table)
result = tf.convert_to_tensor(grad)
