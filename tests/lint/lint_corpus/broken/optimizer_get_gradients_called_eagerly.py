import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((5,))
regressor = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(inputs))
sgd = tf.keras.optimizers.SGD(learning_rate=0.05)


def step(features, targets):
    error = tf.reduce_sum(tf.square(regressor(features) - targets))
    grads = sgd.get_gradients(error, regressor.trainable_variables)  # <- GT018
    return grads


result = step(np.ones((6, 5), "float32"), np.zeros((6, 3), "float32"))
