import tensorflow as tf


def transformer(images, theta):
    return images * tf.reshape(theta[:, 0], (-1, 1)) + tf.reshape(theta[:, 1], (-1, 1))


locnet = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(6)])
cnn = tf.keras.Sequential([tf.keras.Input((16,)), tf.keras.layers.Dense(10)])
x = tf.random.normal((4, 16))
y = tf.one_hot([1, 2, 3, 4], 10)
with tf.GradientTape() as tape:
    h_trans = transformer(x, locnet(x))
    logits = cnn(h_trans)
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(y, logits))
result = tape.gradient(loss, locnet.trainable_variables + cnn.trainable_variables)
