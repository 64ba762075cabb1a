import numpy as np
import tensorflow as tf


def custom_metric(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


data = np.random.uniform(size=(16, 100)).astype("float32")
labels = np.round(np.random.uniform(size=(16, 1))).astype("float32")
model = tf.keras.Sequential([tf.keras.Input((100,)), tf.keras.layers.Dense(32, activation="relu"),
                             tf.keras.layers.Dense(1)])
with tf.GradientTape() as tape:
    loss = custom_metric(labels, model(data))
result = tape.gradient(loss, model.trainable_variables)
