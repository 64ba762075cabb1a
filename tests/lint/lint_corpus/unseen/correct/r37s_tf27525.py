import numpy as np
import tensorflow as tf


def make_train():
    optimizer = tf.keras.optimizers.Adam()

    @tf.function
    def train(model, x, y):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        grads = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        return grads
    return train


x = np.random.rand(8, 3).astype("float32")
y = np.random.rand(8, 1).astype("float32")
for units in [4, 8]:
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(units, activation="relu"),
                                 tf.keras.layers.Dense(1)])
    result = make_train()(model, x, y)
