import tensorflow as tf

inputs = tf.constant([[1.0, 2.0], [3.0, 4.0]])
w = tf.Variable([[0.5, -0.5, 1.0], [1.0, 0.0, -1.0]])
with tf.GradientTape(persistent=True) as tape:
    out = tf.matmul(inputs, w)
result = [tape.gradient(out[:, k], w) for k in range(out.shape[1])]  # <- GT001
