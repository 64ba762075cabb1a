import tensorflow as tf


class Block(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.dense = tf.keras.layers.Dense(4)
        self.norm = tf.keras.layers.BatchNormalization()

    def call(self, x, training=False):
        return self.norm(self.dense(x), training=training)


model = Block()
x = tf.random.normal((8, 3))
model(x)
weights = model.weights  # <- GT022
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x, training=True) ** 2)
result = tape.gradient(loss, weights)
