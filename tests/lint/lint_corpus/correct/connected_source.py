import tensorflow as tf

image = tf.ones([1, 4, 4, 1])
with tf.GradientTape() as tape:
    tape.watch(image)
    score = tf.reduce_mean(image * 4.43)
    loss = tf.reduce_sum(score * 2.0)
result = tape.gradient(loss, image)
