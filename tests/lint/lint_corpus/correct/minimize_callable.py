import tensorflow as tf

w = tf.Variable([0.5, -0.5])
optimizer = tf.compat.v1.train.AdamOptimizer(0.01)
for step in range(2):
    optimizer.minimize(lambda: tf.reduce_sum(tf.square(w - 1.0)), var_list=[w])
result = [w.read_value()]
