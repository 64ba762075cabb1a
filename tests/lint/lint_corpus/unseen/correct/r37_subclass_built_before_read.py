import tensorflow as tf


class UNet(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.down = tf.keras.layers.Conv2D(4, 3, padding="same", activation="relu")
        self.up = tf.keras.layers.Conv2DTranspose(1, 3, padding="same")

    def call(self, x):
        return self.up(self.down(x))


u_net = UNet()
x = tf.ones((1, 8, 8, 1))
u_net(x)
weights = u_net.trainable_variables
optimizer = tf.keras.optimizers.Adam(0.01)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(u_net(x) ** 2)
result = tape.gradient(loss, weights)
optimizer.apply_gradients(zip(result, weights))
