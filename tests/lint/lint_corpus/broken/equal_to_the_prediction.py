import tensorflow as tf

w = tf.Variable([[0.5], [-0.2]])
x = tf.constant([[1.0, 2.0], [3.0, 1.0]])
labels = tf.constant([[1.0], [0.0]])
with tf.GradientTape() as tape:
    hits = tf.cast(tf.equal(labels, tf.sigmoid(x @ w)), tf.float32)  # <- GT010
    loss = 1.0 - tf.reduce_mean(hits)
result = tape.gradient(loss, w)
