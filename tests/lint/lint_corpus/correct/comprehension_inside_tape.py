import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.exp(x)
    elements = [y[i] for i in range(3)]
result = [tape.gradient(e, x) for e in elements]
