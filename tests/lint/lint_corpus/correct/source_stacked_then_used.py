import tensorflow as tf

a = tf.Variable(1.5)
b = tf.Variable(-0.5)
with tf.GradientTape() as tape:
    params = tf.stack([a, b])
    energy = params[0] ** 2 + 3.0 * params[0] * params[1] + params[1] ** 2
grad = tape.gradient(energy, params)
result = grad
