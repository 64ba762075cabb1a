import tensorflow as tf


class MyModel(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.conv1 = tf.keras.layers.Conv2D(4, 3, activation="relu")
        self.flatten = tf.keras.layers.Flatten()
        self.d2 = tf.keras.layers.Dense(10, activation="softmax")

    def call(self, x):
        return self.d2(self.flatten(self.conv1(x)))


model = MyModel()
loss_object = tf.keras.losses.SparseCategoricalCrossentropy()
image = tf.random.normal((1, 6, 6, 1))
label = tf.constant([3])
with tf.GradientTape() as tape:
    tape.watch(image)
    predictions = model(image)
    loss = loss_object(label, predictions)
result = tape.gradient(loss, image)
