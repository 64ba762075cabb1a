import tensorflow as tf

w = tf.Variable([[1.0], [2.0]])
b = tf.Variable([0.5])
x = tf.random.normal((3, 2))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch([w, b])
    loss = tf.reduce_mean((x @ w + b) ** 2)
result = tape.gradient(loss, [w, b])
