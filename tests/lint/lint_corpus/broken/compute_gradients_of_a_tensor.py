import tensorflow as tf

w = tf.Variable([1.0, -2.0])
opt = tf.compat.v1.train.GradientDescentOptimizer(0.1)
loss = tf.reduce_sum(w * w)
result = opt.compute_gradients(loss, [w])  # <- GT013
