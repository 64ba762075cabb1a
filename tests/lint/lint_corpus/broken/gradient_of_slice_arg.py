import tensorflow as tf

x = tf.Variable([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    y = tf.matmul(x, x)
result = tape.gradient(y[0, 1], x)  # <- GT001
