import tensorflow as tf

x = tf.Variable([0.5, 1.5])
with tf.GradientTape(persistent=True) as tape:
    losses = [tf.reduce_sum(x ** 2), tf.reduce_sum(tf.exp(x))]
result = []
for loss in losses:
    result.append(tape.gradient(loss, x))
