import numpy as np
import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, bias_initializer="ones")])
batch = np.random.rand(8, 3).astype("float32")
snapshot = net.get_weights()


def weight_penalty():
    kernel, bias = net.trainable_variables
    return tf.reduce_sum(tf.square(kernel)) + tf.reduce_sum(tf.square(bias))


with tf.GradientTape() as tape:
    loss = weight_penalty() + 0.0 * float(np.sum(snapshot[1]))
result = tape.gradient(loss, net.trainable_variables)
