import tensorflow as tf

x = tf.constant([1.0, 2.0])
rows = []
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.stack([x[0] * x[1], x[0] - x[1] * x[1]])
    for y_i in tf.unstack(y):
        rows.append(y_i)
result = [tape.gradient(r, x) for r in rows]
