import tensorflow as tf

x = tf.Variable([1.0, -2.0])
use_l1 = False
with tf.GradientTape() as tape:
    if use_l1:
        loss = tf.reduce_sum(tf.abs(x))
    else:
        loss = tf.reduce_sum(x ** 2)
result = tape.gradient(loss, x)
