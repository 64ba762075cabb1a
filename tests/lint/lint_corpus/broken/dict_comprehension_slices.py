import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.exp(x)
result = {i: tape.gradient(y[i], x) for i in range(2)}  # <- GT001
result = list(result.values())
