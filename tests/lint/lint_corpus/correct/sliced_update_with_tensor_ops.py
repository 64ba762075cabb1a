import tensorflow as tf

patch = tf.Variable(tf.ones((4, 2)))
with tf.GradientTape() as tape:
    canvas = tf.concat([patch * 2.0, tf.zeros((4, 4))], axis=1)
    loss = tf.reduce_sum(canvas ** 2)
result = tape.gradient(loss, patch)
