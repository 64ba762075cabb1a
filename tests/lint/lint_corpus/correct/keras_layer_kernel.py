import tensorflow as tf

layer = tf.keras.layers.Dense(2)
x = tf.constant([[1.0, -1.0, 0.5]])
with tf.GradientTape() as tape:
    out = layer(x)
    loss = tf.reduce_sum(out ** 2) + 0.1
result = tape.gradient(loss, [layer.kernel, layer.bias])
