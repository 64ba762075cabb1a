import tensorflow as tf

w = tf.Variable([0.5, -0.5])
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)


def loss_fn():
    return tf.reduce_sum(tf.square(w - 1.0))


for step in range(2):
    loss = loss_fn
    optimizer.minimize(lambda: loss(), var_list=[w])
    optimizer.minimize(loss_fn, var_list=[w])
result = [w.read_value()]
