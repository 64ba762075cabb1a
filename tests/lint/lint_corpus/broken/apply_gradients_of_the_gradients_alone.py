import tensorflow as tf

w = tf.Variable([1.0, -1.0])
b = tf.Variable(0.5)
optimizer = tf.keras.optimizers.SGD(0.1)
x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(tf.linalg.matvec(x, w) + b))
grads = tape.gradient(loss, [w, b])
optimizer.apply_gradients(grads)  # <- GT013
result = grads
