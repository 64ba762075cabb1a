import tensorflow as tf


class NormalizedDense(tf.keras.layers.Dense):
    def build(self, input_shape):
        super().build(input_shape)
        self.unit_kernel = self.kernel / tf.norm(self.kernel, axis=0)  # <- GT007

    def call(self, inputs):
        return tf.matmul(inputs, self.unit_kernel) + self.bias


layer = NormalizedDense(2)
x = tf.random.normal((3, 4))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, layer.trainable_variables)
