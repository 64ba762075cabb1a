import tensorflow as tf


class BinaryDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 2), initializer="random_normal")

    def call(self, inputs):
        binary_kernel = self.kernel + tf.stop_gradient(tf.sign(self.kernel) - self.kernel)
        return tf.matmul(inputs, binary_kernel)


layer = BinaryDense()
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, layer.trainable_variables)
