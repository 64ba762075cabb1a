import tensorflow as tf


class TestLayer(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.var = self.add_weight(shape=(1,), initializer="zeros", dtype="float32")

    def call(self, inputs):
        return tf.cast(inputs, tf.float32) * self.var


model = tf.keras.Sequential([tf.keras.Input((1,)), TestLayer()])
x = tf.constant([[1.0], [2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(model(x) - x))
result = tape.gradient(loss, model.trainable_variables)
