import tensorflow as tf


class VariationalAutoencoder:
    def __init__(self, input_dim, z_dim):
        encoder_input = tf.keras.Input((input_dim,))
        x = tf.keras.layers.Dense(8, activation="relu")(encoder_input)
        mu = tf.keras.layers.Dense(z_dim)(x)
        log_var = tf.keras.layers.Dense(z_dim)(x)
        decoder_input = tf.keras.Input((z_dim,))
        decoder_output = tf.keras.layers.Dense(input_dim, activation="sigmoid")(decoder_input)
        self.decoder = tf.keras.Model(decoder_input, decoder_output)
        self.model = tf.keras.Model(encoder_input, [self.decoder(mu), mu, log_var])

    def compile(self, r_loss_factor):
        def vae_r_loss(y_true, y_pred):
            return r_loss_factor * tf.reduce_mean(tf.square(y_true - y_pred), axis=1)

        def vae_kl_loss(mu, log_var):
            return -0.5 * tf.reduce_sum(1 + log_var - tf.square(mu) - tf.exp(log_var), axis=1)

        def vae_loss(y_true, outputs):
            y_pred, mu, log_var = outputs
            return vae_r_loss(y_true, y_pred) + vae_kl_loss(mu, log_var)

        self.loss = vae_loss


vae = VariationalAutoencoder(6, 2)
vae.compile(r_loss_factor=1000)
x_train = tf.random.uniform((16, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(vae.loss(x_train, vae.model(x_train)))
result = tape.gradient(loss, vae.model.trainable_variables)
