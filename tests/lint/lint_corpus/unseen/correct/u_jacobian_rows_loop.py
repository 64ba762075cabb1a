import tensorflow as tf

x = tf.Variable([0.5, 1.0, 1.5])
with tf.GradientTape() as tape:
    y = tf.stack([tf.reduce_sum(x ** 2), tf.reduce_prod(x)])
jac = tape.jacobian(y, x)
result = [jac[i] for i in range(2)]
