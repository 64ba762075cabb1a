import numpy as np
import tensorflow as tf


def squash(values):
    return np.tanh(values).astype(np.float32)


class Squashed(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")

    def call(self, inputs):
        mixed = tf.matmul(inputs, self.w)
        return tf.numpy_function(squash, [mixed], tf.float32)  # <- GT002


layer = Squashed()
x = tf.random.normal((3, 4))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, layer.trainable_variables)
