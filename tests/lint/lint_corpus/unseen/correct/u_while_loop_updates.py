import tensorflow as tf

x = tf.Variable(3.0)
step = 0
while step < 3:
    with tf.GradientTape() as tape:
        f = (x - 1.0) ** 2
    g = tape.gradient(f, x)
    x.assign_sub(0.1 * g)
    step += 1
result = g
