import tensorflow as tf

weights = tf.Variable([9.0, 8.0, 3.0, 2.0])
threshold = tf.Variable(10.0)
leaks = tf.constant([[1.0, 0.0, 1.0, 0.0], [0.0, 1.0, 1.0, 1.0]])
target = tf.constant([1.0, 0.0])
with tf.GradientTape() as tape:
    score = tf.reduce_sum(leaks * weights, axis=1) / threshold
    answer = tf.sigmoid(10.0 * (score - 1.0))
    loss = tf.reduce_mean((answer - target) ** 2)
result = tape.gradient(loss, [weights, threshold])
