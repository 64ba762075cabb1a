import tensorflow as tf

scale = tf.Variable([1.0, 2.0, 3.0])
optimizer = tf.keras.optimizers.SGD(0.1)
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(x * scale))
grad = tape.gradient(loss, scale)
optimizer.apply_gradients(zip(grad, scale))  # <- GT013
result = grad
