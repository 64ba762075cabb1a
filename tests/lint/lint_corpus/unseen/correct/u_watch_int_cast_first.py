import tensorflow as tf

steps = tf.range(1, 4)
xs = tf.cast(steps, tf.float32)
with tf.GradientTape() as tape:
    tape.watch(xs)
    total = tf.reduce_sum(xs ** 2)
result = tape.gradient(total, xs)
