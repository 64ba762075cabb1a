import tensorflow as tf

x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    y = x * x
    z = y * x
dy = tape.gradient(y, x)
dz = tape.gradient(z, x)
del tape
result = [dy, dz]
