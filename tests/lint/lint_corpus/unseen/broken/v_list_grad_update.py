import tensorflow as tf

w = tf.Variable(0.0)
for _ in range(2):
    with tf.GradientTape() as tape:
        loss = (3.0 * w - 2.0) ** 2
    dw = tape.gradient(loss, [w])[0]
    w = w - 0.05 * dw  # <- GT005
result = dw
