import numpy as np
import tensorflow as tf


def build_model(width):
    return tf.keras.Sequential([tf.keras.layers.Dense(width, activation="tanh"), tf.keras.layers.Dense(1)])


model = build_model(4)
features = tf.constant(np.random.default_rng(0).normal(size=(3, 2)), dtype=tf.float32)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(features) ** 2)
result = tape.gradient(loss, model.trainable_variables)
