import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.sin(x) * x
result = []
for i in range(3):
    result.append(tape.gradient(y[i], x))  # <- GT001
