import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.stack([x[0] ** 2, x[1] ** 3])
y0, y1 = tf.unstack(y)  # <- GT001
result = [tape.gradient(y0, x), tape.gradient(y1, x)]
