import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.factor = self.add_weight(shape=(), initializer="ones", dtype="int32")  # <- GT004
        self.offset = self.add_weight(shape=(), initializer="zeros")

    def call(self, inputs):
        return inputs * tf.cast(self.factor, tf.float32) + self.offset


model = tf.keras.Sequential([tf.keras.Input((2,)), Scale()])
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
