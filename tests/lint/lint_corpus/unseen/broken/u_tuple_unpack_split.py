import tensorflow as tf

x = tf.constant([1.0, 2.0, 3.0, 4.0])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    y = tf.exp(x)
left, right = tf.split(y, 2)  # <- GT001
result = [tape.gradient(left, x), tape.gradient(right, x)]
