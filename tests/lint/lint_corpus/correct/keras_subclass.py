import tensorflow as tf


class Linear(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.w = self.add_weight(shape=(2, 1), initializer="ones")
        self.b = self.add_weight(shape=(1,), initializer="zeros")

    def call(self, x):
        return tf.matmul(x, self.w) + self.b


model = Linear()
data = tf.constant([[1.0, -1.0], [2.0, 0.5]])
with tf.GradientTape() as tape:
    out = model(data)
    loss = tf.reduce_mean(out ** 2)
result = tape.gradient(loss, model.trainable_variables)
