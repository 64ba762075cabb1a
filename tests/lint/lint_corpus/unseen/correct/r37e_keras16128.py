import tensorflow as tf


class MemoryLayer(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.controller = tf.keras.layers.Dense(3)

    def call(self, x):
        memory = tf.reduce_mean(self.controller(x), 0)
        return x * memory


layer = MemoryLayer()
x = tf.random.normal((4, 3))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x))
result = tape.gradient(loss, layer.controller.trainable_variables)
