import numpy as np
import tensorflow as tf


def test_loss(y_input, x_input):
    loss = tf.square(x_input - y_input)
    reduced_loss = tf.cumsum(loss)
    return reduced_loss


inputs = tf.keras.Input(shape=(4, 4, 8))
x = tf.keras.layers.Conv2D(5, (1, 1), activation="sigmoid")(inputs)
predictions = tf.keras.layers.GlobalAveragePooling2D()(x)
model = tf.keras.Model(inputs=inputs, outputs=predictions)
train_data = 10 * np.random.rand(2, 4, 4, 8).astype("float32")
y_train = 10 * np.random.rand(2, 5).astype("float32")
with tf.GradientTape() as tape:
    loss = test_loss(y_train, model(train_data))
result = tape.gradient(loss, model.trainable_variables)
