import tensorflow as tf

w = tf.Variable([0.5, -1.5])
b = tf.Variable(0.1)
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
opt = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    w = tf.clip_by_value(w, -1.0, 1.0)  # <- GT005
    loss = tf.reduce_sum(tf.square(tf.linalg.matvec(x, w) + b))
grads = tape.gradient(loss, [w, b])
opt.apply_gradients(zip(grads, [w, b]))
result = grads
