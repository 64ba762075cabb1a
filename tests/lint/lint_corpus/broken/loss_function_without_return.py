import tensorflow as tf

w = tf.Variable([0.5, -1.5])
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
y = tf.constant([1.0, 0.0, 2.0])


def squared_error(target, prediction):
    error = tf.reduce_sum(tf.square(target - prediction))  # <- GT026


with tf.GradientTape() as tape:
    loss = squared_error(y, tf.linalg.matvec(x, w))
result = tape.gradient(loss, [w])
