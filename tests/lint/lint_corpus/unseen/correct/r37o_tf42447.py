import numpy as np
import tensorflow as tf


def loss(ground_truth, output):
    return tf.reduce_sum(ground_truth - output)


def kernel(*args):
    return tf.Variable(np.random.rand(*args), dtype=tf.float32)


k1 = kernel(3, 3, 3, 4)
image = np.random.rand(1, 8, 8, 3).astype("float32")
ground_truth = np.random.rand(1, 6, 6, 4).astype("float32")
optimizer = tf.keras.optimizers.Adam()
with tf.GradientTape() as tape:
    output = tf.nn.conv2d(image, k1, strides=1, padding="VALID")
    value = loss(ground_truth, output)
grads = tape.gradient(value, [k1])
optimizer.apply_gradients(zip(grads, [k1]))
result = grads
