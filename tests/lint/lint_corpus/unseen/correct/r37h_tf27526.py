import tensorflow as tf

params = tf.constant([[1.0, 2.0], [3.0, 4.0]])
indices = tf.constant([[0, 0], [1, 1]])
with tf.GradientTape() as tape:
    tape.watch(params)
    out = tf.gather_nd(params, indices)
result = tape.gradient(out, params)
