import tensorflow as tf

x = tf.Variable(2.0)
with tf.GradientTape() as tape:  # <- GT006
    y = x * x
    z = y * x
dy = tape.gradient(y, x)
dz = tape.gradient(z, x)
result = [dy, dz]
