import tensorflow as tf

w = tf.Variable([1.0, -2.0])
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
result = [g for g, _ in opt.compute_gradients(lambda: tf.reduce_sum(w * w), [w])]
