import tensorflow as tf

x = tf.constant([[20.0, 30.0], [25.0, 40.0]])
W = tf.Variable([[1.0], [1.0]])
Y = tf.constant([[0.0], [0.0]])
with tf.GradientTape() as tape:
    logits_hat = tf.matmul(x, W)
    loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=Y, logits=logits_hat))
result = tape.gradient(loss, W)
