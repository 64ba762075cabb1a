import tensorflow as tf

patch = tf.Variable(tf.ones((4, 2)))
with tf.GradientTape() as tape:
    canvas = tf.Variable(tf.zeros((4, 6)))
    canvas[:, :2].assign(patch * 2.0)  # <- GT012
    loss = tf.reduce_sum(tf.convert_to_tensor(canvas) ** 2)
result = tape.gradient(loss, patch)
