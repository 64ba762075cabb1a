import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * x
    loss = tf.reduce_sum(y)
print(tf.reduce_sum(y))
result = tape.gradient(loss, x)
