import tensorflow as tf

temperature = tf.Variable(1.5, name="temperature")
logits = tf.constant([1.0, 2.0, 0.5])
with tf.GradientTape() as tape:
    probs = tf.nn.softmax(logits / temperature)
    loss = -tf.math.log(probs[1])
result = tape.gradient(loss, temperature)
