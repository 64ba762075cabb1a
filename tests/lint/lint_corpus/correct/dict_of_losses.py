import tensorflow as tf

w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    losses = {name: tf.reduce_sum(w * k) ** 2 for name, k in [("a", 1.0), ("b", 2.0)]}
    total = tf.add_n(list(losses.values()))
result = tape.gradient(total, w)
