import tensorflow as tf


class ScaledDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(input_shape[-1], 2), initializer="ones")
        self.scale = self.add_weight(shape=(), initializer="ones")

    def call(self, inputs):
        return tf.matmul(inputs, self.w * self.scale) + self.scale


layer = ScaledDense()
x = tf.ones((3, 4))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, [layer.w])
