import tensorflow as tf


class Regressor(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.hidden = tf.keras.layers.Dense(4, activation="relu")
        self.out = tf.keras.layers.Dense(1)

    def call(self, x):
        return self.out(self.hidden(x))


model = Regressor()
optimizer = tf.keras.optimizers.Adam(0.01)
params = model.trainable_weights  # <- GT021
x = tf.ones((2, 3))
for step in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(x) ** 2)
    result = tape.gradient(loss, params)
    optimizer.apply_gradients(zip(result, params))
