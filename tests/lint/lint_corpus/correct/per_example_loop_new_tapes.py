import tensorflow as tf

xs = tf.constant([0.5, 1.0, 1.5])
result = []
for x_i in xs:
    with tf.GradientTape() as tape:
        tape.watch(x_i)
        y_i = tf.sin(x_i) * x_i
    result.append(tape.gradient(y_i, x_i))
