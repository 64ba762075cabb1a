import tensorflow as tf


class WithSpare(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.body = tf.keras.layers.Dense(2)
        self.spare = tf.keras.layers.Dense(5)

    def call(self, x):
        return self.body(x)


model = WithSpare()
x = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
