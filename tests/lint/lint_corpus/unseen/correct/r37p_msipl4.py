import tensorflow as tf


class VAE:
    def __init__(self, n_spec, latent_dim):
        x = tf.keras.Input((n_spec,))
        h = tf.keras.layers.Dense(16, activation="relu")(x)
        h = tf.keras.layers.BatchNormalization()(h)
        z_mean = tf.keras.layers.Dense(latent_dim)(h)
        z_log_var = tf.keras.layers.Dense(latent_dim)(h)
        self.decoder = tf.keras.Sequential([tf.keras.Input((latent_dim,)), tf.keras.layers.Dense(n_spec)])
        self.vae = tf.keras.Model(x, [self.decoder(z_mean), z_mean, z_log_var])

    def vae_loss(self, x, outputs):
        x_decoded, z_mean, z_log_var = outputs
        mse_loss = tf.reduce_mean(tf.square(x - x_decoded), axis=-1)
        kl_Loss = 1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var)
        kl_Loss = -0.5 * tf.reduce_sum(kl_Loss, axis=-1)
        return tf.reduce_mean(mse_loss + kl_Loss)


model = VAE(12, 3)
spectra = tf.random.uniform((20, 12))
with tf.GradientTape() as tape:
    loss = model.vae_loss(spectra, model.vae(spectra, training=True))
result = tape.gradient(loss, model.vae.trainable_variables)
