import tensorflow as tf


class TwoStep(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.first = tf.keras.layers.Dense(4, activation="relu")
        self.second = tf.keras.layers.Dense(1)

    def call(self, x):
        h = self.first(x)
        h = self.second(h)
        return h


model = TwoStep()
x = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
