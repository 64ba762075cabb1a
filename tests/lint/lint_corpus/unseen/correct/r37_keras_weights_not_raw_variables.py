import tensorflow as tf


class MyModelKeras(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = self.add_weight(shape=(), initializer=tf.keras.initializers.Constant(5.0))
        self.b = self.add_weight(shape=(), initializer="zeros")

    def call(self, x):
        return self.w * x + self.b


model = MyModelKeras()
x = tf.constant([1.0, 2.0, 3.0])
y = tf.constant([2.0, 4.0, 6.0])
optimizer = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y) ** 2)
result = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(result, model.trainable_variables))
