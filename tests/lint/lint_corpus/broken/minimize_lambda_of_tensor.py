import tensorflow as tf

w = tf.Variable([0.5, -0.5])
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
for step in range(2):
    loss = tf.reduce_sum(tf.square(w - 1.0))
    optimizer.minimize(lambda: loss, var_list=[w])  # <- GT013
result = [w.read_value()]
