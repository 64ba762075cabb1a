import tensorflow as tf

w = tf.Variable([0.1, 0.2])
data = tf.data.Dataset.from_tensor_slices(tf.constant([[1.0, 2.0], [3.0, 4.0]])).batch(1)
for batch in data:
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum((batch * w) ** 2)
    grad = tape.gradient(loss, w)
    w.assign_sub(0.01 * grad)
result = grad
