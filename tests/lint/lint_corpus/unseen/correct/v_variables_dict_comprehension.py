import tensorflow as tf

layers = [tf.Variable([[0.5]]), tf.Variable([[-1.0]])]
x = tf.constant([[2.0]])
with tf.GradientTape() as tape:
    h = x
    for w in layers:
        h = tf.tanh(tf.matmul(h, w))
    loss = tf.reduce_sum(h)
grads = tape.gradient(loss, layers)
result = {i: g for i, g in enumerate(grads)}
