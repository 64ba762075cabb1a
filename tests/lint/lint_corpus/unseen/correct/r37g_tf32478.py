import tensorflow as tf

optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.001)
x = tf.Variable(2 * tf.ones((5, 1)))
with tf.GradientTape() as t:
    y = x ** 2
dy_dx = t.gradient(y, x)
optimizer.apply_gradients([(dy_dx, x)])
result = [dy_dx]
