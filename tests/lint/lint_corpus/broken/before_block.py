import tensorflow as tf

x = tf.Variable(3.0)
y = x * x  # <- GT007
with tf.GradientTape() as tape:
    loss = y
result = tape.gradient(loss, x)
