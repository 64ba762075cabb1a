import tensorflow as tf


def spread_loss(labels, predictions):
    return tf.math.reduce_std(labels)  # <- GT017


regressor = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
inputs = tf.random.normal((7, 3))
labels = tf.random.normal((7, 1))
with tf.GradientTape() as tape:
    loss = spread_loss(labels, regressor(inputs))
result = tape.gradient(loss, regressor.trainable_variables)
