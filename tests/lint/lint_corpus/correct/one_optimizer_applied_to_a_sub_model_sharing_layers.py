import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((3,))
code = tf.keras.layers.Dense(2, activation="tanh")(inputs)
encoder = tf.keras.Model(inputs, code)
autoencoder = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(code))
opt = tf.keras.optimizers.SGD(0.1)
batch = np.random.rand(6, 3).astype("float32")
with tf.GradientTape() as tape:
    recon = tf.reduce_mean(tf.square(autoencoder(batch) - batch))
opt.apply_gradients(zip(tape.gradient(recon, autoencoder.trainable_variables), autoencoder.trainable_variables))
with tf.GradientTape() as tape:
    spread = -tf.reduce_mean(tf.square(encoder(batch)))
result = tape.gradient(spread, encoder.trainable_variables)
opt.apply_gradients(zip(result, encoder.trainable_variables))
