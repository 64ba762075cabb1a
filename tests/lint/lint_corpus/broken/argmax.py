import tensorflow as tf

logits = tf.Variable([0.2, 0.7, 0.1])
with tf.GradientTape() as tape:
    label = tf.cast(tf.argmax(logits), tf.float32)  # <- GT010
    loss = label * 2.0
result = tape.gradient(loss, logits)
