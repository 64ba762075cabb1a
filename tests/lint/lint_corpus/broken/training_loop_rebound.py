import tensorflow as tf

w = tf.Variable([1.0, -1.0])
x = tf.constant([0.5, 2.0])
for step in range(3):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((w * x - 1.0) ** 2)
    grad = tape.gradient(loss, w)
    w = w - 0.1 * grad  # <- GT005
result = grad
