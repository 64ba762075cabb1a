import tensorflow as tf

xvar = tf.Variable(5.0)
with tf.GradientTape() as tape:
    f = 2 * xvar * xvar - 5 * xvar + 4
result = tape.gradient(f, [xvar])
