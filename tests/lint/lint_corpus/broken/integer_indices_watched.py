import tensorflow as tf

table = tf.constant([[0.5, 1.0], [2.0, 3.0], [4.0, 5.0]])
ids = tf.constant([2, 0])
with tf.GradientTape() as tape:
    tape.watch(ids)  # <- GT004
    rows = tf.gather(table, ids)
    loss = tf.reduce_sum(rows ** 2)
result = tape.gradient(loss, ids)
