import tensorflow as tf


class Predict(tf.keras.layers.Layer):
    def __init__(self, trainable=True):
        super(Predict, self).__init__()
        self.dense_layer = tf.keras.layers.Dense(8, activation="relu", trainable=trainable)
        self.predict = tf.keras.layers.Dense(1, trainable=trainable)

    def call(self, x):
        return self.predict(self.dense_layer(x))


class Regulation(tf.keras.Model):
    def __init__(self, trainable=True):
        super(Regulation, self).__init__()
        self.head = Predict(trainable=trainable)

    def call(self, x):
        return self.head(x)


model = Regulation(trainable=True)
x = tf.ones((4, 5))
model(x)
params = model.trainable_variables
optimizer = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - 1.0) ** 2)
result = tape.gradient(loss, params)
optimizer.apply_gradients(zip(result, params))
