import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((5,))
regressor = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(inputs))
sgd = tf.keras.optimizers.SGD(learning_rate=0.05)


def step(features, targets):
    with tf.GradientTape() as tape:
        error = tf.reduce_sum(tf.square(regressor(features) - targets))
    grads = tape.gradient(error, regressor.trainable_variables)
    sgd.apply_gradients(zip(grads, regressor.trainable_variables))
    return grads


result = step(np.ones((6, 5), "float32"), np.zeros((6, 3), "float32"))
