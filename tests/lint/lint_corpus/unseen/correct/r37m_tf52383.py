import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((8,))
hidden = tf.keras.layers.Dense(12, activation="tanh")(inputs)
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, activation="sigmoid")(hidden))
X = np.random.rand(16, 8).astype("float32")
y = np.random.randint(0, 2, (16, 1)).astype("float32")


def customLoss(x, yTrue):
    x_tensor = tf.convert_to_tensor(x, dtype=tf.float32)
    with tf.GradientTape() as t:
        t.watch(x_tensor)
        output = model(x_tensor)
    DyDX = t.gradient(output, x_tensor)
    return tf.reduce_mean(tf.square(DyDX[:, 0]))


with tf.GradientTape() as tape:
    loss = customLoss(X, y)
result = tape.gradient(loss, model.trainable_variables)
