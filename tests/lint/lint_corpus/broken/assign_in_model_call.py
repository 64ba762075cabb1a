import tensorflow as tf


class Posterior(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.w = tf.Variable(0.0)

    def call(self, x):
        self.w.assign(x * 2.0)  # <- GT012
        return self.w * self.w


model = Posterior()
x = tf.Variable(3.0)
with tf.GradientTape() as tape:
    y = model(x)
result = tape.gradient(y, x)
