import tensorflow as tf

logits_w = tf.Variable([[0.2, -0.1], [0.4, 0.3]])
x = tf.constant([[1.0, 2.0]])
labels = tf.constant([1])
with tf.GradientTape() as tape:
    logits = tf.matmul(x, logits_w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits))
    predicted = tf.argmax(logits, axis=1)
    accuracy = tf.reduce_mean(tf.cast(tf.equal(tf.cast(predicted, tf.int32), labels), tf.float32))
result = tape.gradient(loss, logits_w)
