import tensorflow as tf

w = tf.Variable([0.5, -0.5])
target = 2.0 * tf.ones([2])
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)


def loss_fn():
    return tf.reduce_sum(tf.square(2.0 * w - target))


optimizer.minimize(loss_fn, var_list=[w])
result = [w.read_value()]
