import tensorflow as tf

w = tf.Variable(0.7)
x = tf.constant([1.0, 2.0, 3.0])
logits = w * x  # <- GT007
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.nn.softplus(logits))
result = tape.gradient(loss, w)
