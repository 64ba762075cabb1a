import tensorflow as tf


@tf.function
def slope(x):
    return tf.gradients(x * x, x)[0]


def curvature(w):
    return tf.hessians(tf.reduce_sum(w ** 3), w)[0]


result = [slope(tf.constant([1.0, 2.0])), tf.function(curvature)(tf.constant([1.0, 2.0]))]
