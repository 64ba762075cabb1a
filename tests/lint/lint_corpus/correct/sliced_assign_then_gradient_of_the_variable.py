import tensorflow as tf

patch = tf.constant(tf.ones((4, 2)))
canvas = tf.Variable(tf.zeros((4, 6)))
with tf.GradientTape() as tape:
    canvas[:, :2].assign(patch * 2.0)
    loss = tf.reduce_sum(canvas ** 2)
result = tape.gradient(loss, canvas)
