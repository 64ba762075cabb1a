import tensorflow as tf

x = tf.Variable(2.0)
with tf.GradientTape(persistent=True) as tape:
    y1 = x ** 2
    y2 = x ** 3
dy1_dx = tape.gradient(y1, x)
dy2_dx = tape.gradient(y2, x)
del tape
result = [dy1_dx, dy2_dx]
