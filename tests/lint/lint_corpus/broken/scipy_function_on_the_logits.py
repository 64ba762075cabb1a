import scipy.special as sps
import tensorflow as tf

w = tf.Variable([[0.5, -1.0, 2.0], [1.5, 0.0, -0.5]])
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
with tf.GradientTape() as tape:
    logits = tf.matmul(x, w)
    log_norm = sps.logsumexp(logits, axis=1)  # <- GT002
    loss = tf.reduce_mean(log_norm)
result = tape.gradient(loss, [w])
