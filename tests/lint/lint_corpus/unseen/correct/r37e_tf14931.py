import tensorflow as tf

logits = tf.Variable([[0.2, 1.5, -0.3], [1.0, 0.1, 0.4]])
labels = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    predicted = tf.reduce_sum(tf.nn.softmax(logits) * tf.range(3.0), axis=1)
    loss = tf.reduce_mean((predicted - labels) ** 2)
result = tape.gradient(loss, logits)
