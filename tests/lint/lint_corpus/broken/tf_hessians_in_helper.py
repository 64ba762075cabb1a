import tensorflow as tf


def curvature(w):
    loss = tf.reduce_sum(w ** 3)
    return tf.hessians(loss, w)  # <- GT018


result = curvature(tf.Variable([1.0, 2.0]))
