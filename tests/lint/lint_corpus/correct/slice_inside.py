import tensorflow as tf

x = tf.constant([2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * x
    y0 = y[0]
    y1 = y[1]
result = [tape.gradient(y0, x)[0], tape.gradient(y1, x)[1]]
