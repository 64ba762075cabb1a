import tensorflow as tf

x = tf.Variable([1.0, 2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    y = x ** 2 + tf.reduce_sum(x)
rows = []
for i in tf.range(3):
    rows.append(tape.gradient(y[i], x))  # <- GT001
result = rows
