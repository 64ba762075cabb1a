import tensorflow as tf

w = tf.Variable([1.0, 2.0])
x = tf.constant([3.0, 4.0])
optimizer = tf.keras.optimizers.SGD(0.1)
loss = tf.reduce_sum((w * x) ** 2)
optimizer.minimize(loss, var_list=[w], tape=tf.GradientTape())  # <- GT013
result = [w.read_value()]
