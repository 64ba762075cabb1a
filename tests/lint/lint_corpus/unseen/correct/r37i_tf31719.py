import tensorflow as tf


class SquareGrad(tf.keras.layers.Layer):
    def call(self, x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x)


fixed_input = tf.keras.Input(shape=(2,))
b = SquareGrad()(fixed_input)
model = tf.keras.Model(inputs=[fixed_input], outputs=[b])
result = model(tf.constant([[2.0, 3.0]]))
