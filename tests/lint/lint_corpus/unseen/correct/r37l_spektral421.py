import tensorflow as tf


def gcn(x, a):
    return tf.sparse.sparse_dense_matmul(a, x)


x = tf.random.normal((3, 2))
a = tf.sparse.from_dense(tf.constant([[0.0, 0.5, 0.0], [0.5, 0.0, 0.2], [0.0, 0.2, 0.0]]))
with tf.GradientTape() as tape:
    tape.watch(x)
    tape.watch(a.values)
    out = gcn(x, a)
result = tape.gradient(out, [x, a.values])
