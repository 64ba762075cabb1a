import tensorflow as tf

w = tf.Variable([1.0, 2.0])
table = tf.Variable([0.0, 0.0, 0.0])
with tf.GradientTape() as tape:
    table.scatter_nd_update([[0], [2]], w * 3.0)  # <- GT012
    loss = tf.reduce_sum(table * table)
result = tape.gradient(loss, w)
