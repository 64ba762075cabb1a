import tensorflow as tf


class ConvBlock(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv = tf.keras.layers.Conv2D(4, 3, padding="same", use_bias=False)
        self.norm = tf.keras.layers.BatchNormalization()

    def call(self, x, training=False):
        return tf.nn.leaky_relu(self.norm(self.conv(x), training=training))


model = ConvBlock()
optimizer = tf.keras.optimizers.Adam(0.001)
images = tf.random.normal((2, 8, 8, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(images, training=True) ** 2)
result = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(result, model.trainable_variables))
