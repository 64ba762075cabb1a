import tensorflow as tf

a = tf.constant(1.5)
b = tf.constant(-2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch([a, b])
    ys = tf.stack([a * b, a + b, a * b * a])
result = []
for y_i in ys:  # <- GT001
    result.append(tape.gradient(y_i, [a, b], unconnected_gradients=tf.UnconnectedGradients.ZERO))
