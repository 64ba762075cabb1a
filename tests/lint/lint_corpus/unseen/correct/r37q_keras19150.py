import numpy as np
import tensorflow as tf


def custom_loss(y_true, y_pred):
    loss = tf.keras.losses.sparse_categorical_crossentropy(y_true, y_pred, ignore_class=-1)
    return tf.reduce_mean(loss)


model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(5, activation="softmax")])
x = np.random.rand(8, 6).astype(np.float32)
y = np.random.randint(-1, 5, size=8)
with tf.GradientTape() as tape:
    loss = custom_loss(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
