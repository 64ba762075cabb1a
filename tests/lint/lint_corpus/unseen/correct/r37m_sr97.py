import tensorflow as tf


class Conv2DWeightNorm(tf.keras.layers.Conv2D):
    def build(self, input_shape):
        self.wn_g = self.add_weight(name="wn_g", shape=(self.filters,), initializer="ones", trainable=True)
        super().build(input_shape)

    def call(self, inputs):
        square_sum = tf.reduce_sum(tf.square(self.kernel), [0, 1, 2], keepdims=False)
        inv_norm = tf.math.rsqrt(square_sum)
        wn_kernel = self.kernel * (inv_norm * self.wn_g)
        return tf.nn.conv2d(inputs, wn_kernel, strides=1, padding="VALID") + self.bias


layer = Conv2DWeightNorm(4, 3)
x = tf.random.normal((2, 8, 8, 3))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(layer(x) ** 2)
result = tape.gradient(loss, layer.trainable_variables)
