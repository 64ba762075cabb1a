import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((16, 16, 3)), tf.keras.layers.Conv2D(4, 3, activation="relu")])
base_image = tf.constant(np.random.uniform(0, 1, (1, 16, 16, 3)), tf.float32)
style_image = tf.constant(np.random.uniform(0, 1, (1, 16, 16, 3)), tf.float32)
combination_image = tf.Variable(np.random.uniform(0, 1, (1, 16, 16, 3)), dtype=tf.float32)


def gram_matrix(x):
    features = tf.reshape(tf.transpose(x, (2, 0, 1)), (tf.shape(x)[-1], -1))
    return tf.matmul(features, features, transpose_b=True)


with tf.GradientTape() as tape:
    features = model(tf.concat([base_image, style_image, combination_image], axis=0))
    loss = tf.reduce_sum(tf.square(features[2] - features[0]))
    loss += tf.reduce_sum(tf.square(gram_matrix(features[1]) - gram_matrix(features[2])))
grads = tape.gradient(loss, combination_image)
result = grads
