import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.calls = self.add_weight(shape=(), initializer="zeros", dtype="int32", trainable=False)
        self.factor = self.add_weight(shape=(), initializer="ones")

    def call(self, inputs):
        self.calls.assign_add(1)
        return inputs * self.factor


model = tf.keras.Sequential([tf.keras.Input((2,)), Scale()])
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
