import tensorflow as tf

w = tf.Variable([0.5, -0.5])
prediction = 2.0 * w
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)


def loss_fn():
    return tf.reduce_sum(tf.square(prediction - 1.0))


optimizer.minimize(loss_fn, var_list=[w])  # <- GT013
result = [w.read_value()]
