import tensorflow as tf

a = tf.Variable(2.0)
b = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = a * a
result = tape.gradient(y, [a, b], unconnected_gradients=tf.UnconnectedGradients.ZERO)[:1]
