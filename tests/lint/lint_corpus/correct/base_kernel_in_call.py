import tensorflow as tf


class NormalizedDense(tf.keras.layers.Dense):
    def call(self, inputs):
        unit_kernel = self.kernel / tf.norm(self.kernel, axis=0)
        return tf.matmul(inputs, unit_kernel) + self.bias


layer = NormalizedDense(2)
x = tf.random.normal((3, 4))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, layer.trainable_variables)
