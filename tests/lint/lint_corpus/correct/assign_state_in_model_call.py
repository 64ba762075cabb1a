import tensorflow as tf


class Remember(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(2.0)
        self.last = tf.Variable(0.0, trainable=False)

    def call(self, x):
        self.last.assign(x)
        return x * self.w


model = Remember()
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = model(x)
result = tape.gradient(y, x)
