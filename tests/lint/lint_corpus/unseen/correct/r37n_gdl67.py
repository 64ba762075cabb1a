import numpy as np
import tensorflow as tf


def gradient_penalty_loss(critic, interpolated_samples):
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(interpolated_samples)
        y_pred = critic(interpolated_samples)
    gradients = gp_tape.gradient(y_pred, interpolated_samples)
    gradients_sqr = tf.square(gradients)
    gradients_sqr_sum = tf.reduce_sum(gradients_sqr, axis=np.arange(1, len(gradients_sqr.shape)))
    gradient_l2_norm = tf.sqrt(gradients_sqr_sum)
    gradient_penalty = tf.square(1 - gradient_l2_norm)
    return tf.reduce_mean(gradient_penalty)


critic = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(16, activation="relu"),
                              tf.keras.layers.Dense(1, use_bias=False)])
real = tf.random.normal((4, 8))
fake = tf.random.normal((4, 8))
alpha = tf.random.uniform((4, 1))
interpolated_img = alpha * real + (1 - alpha) * fake
with tf.GradientTape() as tape:
    wasserstein = tf.reduce_mean(critic(fake)) - tf.reduce_mean(critic(real))
    loss = wasserstein + 10 * gradient_penalty_loss(critic, interpolated_img)
result = tape.gradient(loss, critic.trainable_variables)
