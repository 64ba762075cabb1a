import tensorflow as tf


class TwoHeads(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.trunk = tf.keras.layers.Dense(6, activation="relu")
        self.policy = tf.keras.layers.Dense(2)
        self.value = tf.keras.layers.Dense(1)

    def call(self, x):
        h = self.trunk(x)
        return self.policy(h), self.value(h)


net = TwoHeads()
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    out = net(x)
    loss = tf.reduce_mean(tf.square(out[1])) + tf.reduce_mean(tf.square(out[0]))
result = tape.gradient(loss, net.trainable_variables)
