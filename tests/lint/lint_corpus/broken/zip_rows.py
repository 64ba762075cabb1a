import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.stack([x[0] * x[1], x[0] + x[1]])
names = ["product", "sum"]
result = []
for name, y_i in zip(names, y):  # <- GT001
    result.append(tape.gradient(y_i, x))
