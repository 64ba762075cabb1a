import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    text = tf.strings.as_string(tf.reduce_sum(x ** 2))  # <- GT010
    loss = tf.strings.to_number(text)
result = tape.gradient(loss, x)
