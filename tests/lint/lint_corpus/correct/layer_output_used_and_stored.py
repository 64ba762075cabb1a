import tensorflow as tf


class Smoother(tf.keras.layers.Layer):
    def __init__(self):
        super().__init__()
        self.gate = tf.keras.layers.Dense(3)
        self.level = tf.Variable(tf.zeros((3,)), trainable=False)

    def call(self, x):
        level = tf.reduce_mean(self.gate(x), 0)
        self.level.assign(level)
        return x * level


smoother = Smoother()
x = tf.random.normal((4, 3))
smoother(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(smoother(x) ** 2)
result = tape.gradient(loss, smoother.trainable_variables)
