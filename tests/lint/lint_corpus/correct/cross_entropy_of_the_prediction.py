import tensorflow as tf

w = tf.Variable([[0.5], [-0.2]])
x = tf.constant([[1.0, 2.0], [3.0, 1.0]])
labels = tf.constant([[1.0], [0.0]])
with tf.GradientTape() as tape:
    p = tf.sigmoid(x @ w)
    hits = tf.cast(tf.equal(labels, tf.round(p)), tf.float32)
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(labels, p))
result = tape.gradient(loss, w)
