import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    outputs = [tf.reduce_sum(x ** 2), tf.reduce_prod(x)]
first = outputs[0]
result = [tape.gradient(first, x), tape.gradient(outputs[1], x)]
