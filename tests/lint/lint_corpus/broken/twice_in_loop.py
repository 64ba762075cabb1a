import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:  # <- GT006
    tape.watch(x)
    y = x * x
    rows = tf.unstack(y)
result = [tape.gradient(r, x) for r in rows]
