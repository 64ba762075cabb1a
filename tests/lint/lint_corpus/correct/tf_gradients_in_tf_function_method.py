import tensorflow as tf


class Critic:
    def __init__(self):
        self.w = tf.Variable([1.0, 2.0])

    @tf.function
    def penalty(self, x):
        y = tf.reduce_sum(self.w * x ** 2)
        return tf.gradients(y, x)[0]


critic = Critic()
result = critic.penalty(tf.constant([1.0, 2.0]))
