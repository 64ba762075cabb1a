import tensorflow as tf

w = tf.Variable([0.5, -1.5])
shift = tf.Variable(0.1)
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
opt = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(tf.linalg.matvec(x, w) + shift))
grads = tape.gradient(loss, [w, shift])
opt.apply_gradients(zip(grads, [w, shift]))
result = grads
