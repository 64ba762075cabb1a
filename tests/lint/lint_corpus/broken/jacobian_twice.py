import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:  # <- GT006
    y = tf.sin(x)
    z = tf.cos(x)
jy = tape.jacobian(y, x)
jz = tape.jacobian(z, x)
result = [jy, jz]
