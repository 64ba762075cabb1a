import tensorflow as tf


class Scale(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.w = self.add_weight(shape=(), initializer="ones")

    def call(self, x):
        return self.w * x


net = Scale()
out = net(tf.constant(3.0))  # <- GT007
with tf.GradientTape() as tape:
    loss = out * out
result = tape.gradient(loss, net.trainable_variables)
