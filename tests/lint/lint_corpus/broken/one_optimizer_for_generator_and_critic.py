import numpy as np
import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(4)])
critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])  # <- GT031
shared = tf.keras.optimizers.Adam(1e-3)
noise = np.random.rand(5, 2).astype("float32")
with tf.GradientTape() as g_tape:
    g_loss = -tf.reduce_mean(critic(generator(noise)))
g_grads = g_tape.gradient(g_loss, generator.trainable_variables)
shared.apply_gradients(zip(g_grads, generator.trainable_variables))
with tf.GradientTape() as c_tape:
    c_loss = tf.reduce_mean(critic(generator(noise)))
result = c_tape.gradient(c_loss, critic.trainable_variables)
shared.apply_gradients(zip(result, critic.trainable_variables))
