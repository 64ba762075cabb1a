import tensorflow as tf

k = tf.constant(4)
with tf.GradientTape() as g:
    g.watch(k)  # <- GT004
    r = tf.cast(k, tf.float32) ** 0.5
result = g.gradient(r, k)
