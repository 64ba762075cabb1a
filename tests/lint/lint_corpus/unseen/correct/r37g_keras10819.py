import tensorflow as tf

original_dim, latent_dim = 8, 2
inputs = tf.keras.Input((original_dim,))
h = tf.keras.layers.Dense(4, activation="relu")(inputs)
encoder = tf.keras.Model(inputs, [tf.keras.layers.Dense(latent_dim)(h), tf.keras.layers.Dense(latent_dim)(h)])
decoder = tf.keras.Sequential([tf.keras.Input((latent_dim,)),
                               tf.keras.layers.Dense(original_dim, activation="sigmoid")])
x = tf.random.uniform((5, original_dim))
with tf.GradientTape() as tape:
    z_mean, z_log_var = encoder(x)
    z = z_mean + tf.exp(0.5 * z_log_var) * tf.random.normal(tf.shape(z_mean))
    outputs = decoder(z)
    reconstruction_loss = tf.keras.losses.binary_crossentropy(x, outputs) * original_dim
    kl_loss = -0.5 * tf.reduce_sum(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=-1)
    vae_loss = tf.reduce_mean(reconstruction_loss + kl_loss)
result = tape.gradient(vae_loss, encoder.trainable_variables + decoder.trainable_variables)
