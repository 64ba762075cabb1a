import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = tf.Variable(tf.ones(input_shape[-1:]))

    def call(self, x):
        return x * self.w


layer = Scale()
x = tf.ones((4, 3))


@tf.function
def train_step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(layer(x) ** 2)
    return tape.gradient(loss, [layer.w])


result = train_step(x)
