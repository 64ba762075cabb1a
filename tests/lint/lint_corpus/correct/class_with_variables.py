import tensorflow as tf


class Quadratic:
    def __init__(self):
        self.a = tf.Variable(1.0)
        self.b = tf.Variable(-2.0)

    def __call__(self, x):
        return self.a * x * x + self.b * x


f = Quadratic()
with tf.GradientTape() as tape:
    y = f(tf.constant(3.0))
result = tape.gradient(y, [f.a, f.b])
