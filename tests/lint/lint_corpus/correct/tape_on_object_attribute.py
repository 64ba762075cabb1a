import tensorflow as tf


class Probe:
    def __init__(self):
        self.x = tf.Variable([1.0, 2.0])

    def run(self):
        self.tape = tf.GradientTape()
        with self.tape:
            y = tf.reduce_sum(tf.exp(self.x))
        return self.tape.gradient(y, self.x)


result = Probe().run()
