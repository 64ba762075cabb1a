import tensorflow as tf


class Scale(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.log_scale = self.add_weight(shape=(input_shape[-1],), initializer="zeros")

    def call(self, inputs):
        return inputs * tf.reshape(tf.exp(self.log_scale), (1, -1))


net = tf.keras.Sequential([tf.keras.Input((3,)), Scale(), tf.keras.layers.Dense(1)])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(net(x) ** 2)
grad = tape.gradient(loss, net.trainable_variables)
result = grad
