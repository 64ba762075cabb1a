import tensorflow as tf

w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:  # <- GT006
    losses = [tf.reduce_sum(w * w), tf.reduce_sum(w)]
result = [tape.gradient(l, w) for l in losses]
