import tensorflow as tf

steps = tf.range(4)
with tf.GradientTape() as tape:
    tape.watch(steps)  # <- GT004
    total = tf.reduce_sum(tf.cast(steps, tf.float32) ** 2)
result = tape.gradient(total, steps)
