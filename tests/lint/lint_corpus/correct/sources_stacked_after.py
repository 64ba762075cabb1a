import tensorflow as tf

a = tf.Variable(1.5)
b = tf.Variable(-0.5)
with tf.GradientTape() as tape:
    energy = a ** 2 + 3.0 * a * b + b ** 2
grad = tf.stack(tape.gradient(energy, [a, b]))
result = grad
