import tensorflow as tf

w = tf.Variable([[0.1, 0.2, 0.3], [0.0, -0.1, 0.2]])
x = tf.constant([[1.0, 2.0]])
labels = tf.constant([2])
with tf.GradientTape() as tape:
    logits = x @ w
    one_hot = tf.one_hot(labels, depth=3)
    loss = tf.reduce_sum(tf.nn.softmax_cross_entropy_with_logits(labels=one_hot, logits=logits))
result = tape.gradient(loss, w)
