import tensorflow as tf

w = tf.Variable([1.0, 2.0])
table = tf.Variable([0.0, 0.0, 0.0])
with tf.GradientTape() as tape:
    new_table = tf.tensor_scatter_nd_update(table, [[0], [2]], w * 3.0)
    loss = tf.reduce_sum(new_table * new_table)
result = tape.gradient(loss, w)
