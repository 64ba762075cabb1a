import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = x * 3.0
elements = list(y)  # <- GT001
result = [tape.gradient(e, x) for e in elements]
