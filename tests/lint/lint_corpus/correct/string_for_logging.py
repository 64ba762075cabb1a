import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(x ** 2)
    text = tf.strings.as_string(loss)
result = tape.gradient(loss, x)
