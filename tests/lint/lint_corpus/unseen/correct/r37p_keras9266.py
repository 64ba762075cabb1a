import tensorflow as tf

original_dim, latent_dim = 8, 2
x_in = tf.keras.Input((original_dim,))
h = tf.keras.layers.Dense(4, activation="relu")(x_in)
z_mean = tf.keras.layers.Dense(latent_dim)(h)
z_log_var = tf.keras.layers.Dense(latent_dim)(h)
z = tf.keras.layers.Lambda(lambda a: a[0] + tf.exp(a[1] / 2) * tf.random.normal(tf.shape(a[0])))([z_mean, z_log_var])
x_decoded_mean = tf.keras.layers.Dense(original_dim, activation="sigmoid")(z)
vae = tf.keras.Model(x_in, [x_decoded_mean, z_mean, z_log_var])


def vae_loss(x, x_decoded_mean, z_mean, z_log_var):
    xent_loss = original_dim * tf.keras.losses.binary_crossentropy(x, x_decoded_mean)
    kl_loss = -0.5 * tf.reduce_sum(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=-1)
    return tf.reduce_mean(xent_loss + kl_loss)


x = tf.random.uniform((16, original_dim))
with tf.GradientTape() as tape:
    loss = vae_loss(x, *vae(x))
result = tape.gradient(loss, vae.trainable_variables)
