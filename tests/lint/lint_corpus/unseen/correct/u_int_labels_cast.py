import tensorflow as tf

w = tf.Variable([0.5, -0.5])
labels = tf.constant([1, 0])
with tf.GradientTape() as tape:
    logits = w * 2.0
    loss = tf.reduce_sum(tf.square(logits - tf.cast(labels, tf.float32)))
result = tape.gradient(loss, w)
