import tensorflow as tf

# tensorflow#56968: the target is a constant made in the block, not computed from the watched input
image = tf.ones([1, 4, 4, 1])
with tf.GradientTape() as tape:
    tape.watch(image)
    score = tf.constant([4.43], dtype=tf.float32)
    loss = tf.reduce_sum(score * 2.0)
result = tape.gradient(loss, image)  # <- GT017
