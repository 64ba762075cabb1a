import tensorflow as tf


class Affine(tf.keras.layers.Layer):
    def __init__(self, width):
        super().__init__()
        self.scale = tf.Variable(tf.ones(width))  # <- GT021
        self.shift = tf.Variable(tf.zeros(width))

    def call(self, inputs):
        return inputs * self.scale + self.shift


head = Affine(3)
batch = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    err = tf.reduce_sum(head(batch) ** 2)
result = tape.gradient(err, head.trainable_variables)
tf.keras.optimizers.SGD(0.1).apply_gradients(zip(result, head.trainable_variables))
