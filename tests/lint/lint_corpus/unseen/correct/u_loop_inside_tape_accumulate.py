import tensorflow as tf

w = tf.Variable(0.5)
xs = [1.0, 2.0, 3.0]
with tf.GradientTape() as tape:
    total = 0.0
    for x in xs:
        total += (w * x - 1.0) ** 2
result = tape.gradient(total, w)
