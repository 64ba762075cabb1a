import tensorflow as tf


class GatherLayer(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.w = self.add_weight(shape=(2,), name="weights", initializer="random_normal", trainable=True)
        self.b = self.add_weight(shape=(1,), name="offset", initializer="random_normal", trainable=True)

    def call(self, inputs):
        m = tf.concat([tf.reshape(tf.gather(self.w, ix), (-1, 1)) for ix in [[0, 1], [1, 0]]], axis=-1)
        return tf.matmul(inputs, m) + self.b


model = tf.keras.Sequential([tf.keras.Input((2,)), GatherLayer()])
x = tf.random.normal((4, 2))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
