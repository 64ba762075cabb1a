import tensorflow as tf

a = tf.Variable(1.5)
b = tf.Variable(-0.5)
with tf.GradientTape() as tape:
    params = tf.stack([a, b])
    energy = a ** 2 + 3.0 * a * b + b ** 2
grad = tape.gradient(energy, params)  # <- GT017
result = grad
