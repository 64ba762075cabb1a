import tensorflow as tf
from tensorflow.keras import backend as K

inputs = tf.keras.Input((6,))
hidden = tf.keras.layers.Dense(4, activation="relu")(inputs)
mean = tf.keras.layers.Dense(2)(hidden)
log_var = tf.keras.layers.Dense(2)(hidden)
decoded = tf.keras.layers.Dense(6)(tf.keras.layers.Concatenate()([mean, log_var]))
autoencoder = tf.keras.Model(inputs, [decoded, mean, log_var])


def kl_loss(x, x_decoded, mean, log_var):
    kl = -0.5 * K.mean(1 + log_var - K.exp(log_var) - K.square(mean), axis=-1)
    return tf.reduce_mean(tf.square(x - x_decoded)) + K.mean(kl)


data = tf.random.normal((5, 6))
with tf.GradientTape() as tape:
    x_decoded, m, lv = autoencoder(data)
    loss = kl_loss(data, x_decoded, m, lv)
result = tape.gradient(loss, autoencoder.trainable_variables)
