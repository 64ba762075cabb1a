import tensorflow as tf

x = tf.Variable(1.5)
with tf.GradientTape() as tape:
    y = tf.exp(x)
    result = tape.gradient(y, x)
