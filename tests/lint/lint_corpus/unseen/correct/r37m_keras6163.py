import tensorflow as tf


class MyLayer(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.W = self.add_weight(name="W", shape=(input_shape[-1], 3))

    def func(self, output):
        return tf.tanh(output)

    def call(self, inputs):
        output = tf.matmul(inputs, self.W)
        return self.func(output)


layer = MyLayer()
head = tf.keras.layers.Dense(1)
x = tf.random.normal((8, 4))
y = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - head(layer(x))))
result = tape.gradient(loss, layer.trainable_variables + head.trainable_variables)
