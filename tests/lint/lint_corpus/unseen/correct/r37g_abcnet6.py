import tensorflow as tf


class ABCDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], 4), initializer="random_normal")
        self.shift_parameters = self.add_weight(shape=(3,), initializer="random_normal")

    def call(self, inputs):
        stddev = tf.math.reduce_std(self.kernel)
        tiled_filters = self.kernel[None] - tf.reduce_mean(self.kernel)
        shifted = tiled_filters + self.shift_parameters[:, None, None] * stddev
        binarized_filters = shifted + tf.stop_gradient(tf.sign(shifted) - shifted)
        return tf.reduce_sum(tf.matmul(inputs, binarized_filters), axis=0)


layer = ABCDense()
x = tf.random.normal((5, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(layer(x) ** 2)
result = tape.gradient(loss, [layer.shift_parameters])
