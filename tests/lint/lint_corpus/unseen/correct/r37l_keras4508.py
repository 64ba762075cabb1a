import tensorflow as tf

original_dim, latent_dim = 8, 2
encoder = tf.keras.Sequential([tf.keras.Input((original_dim,)), tf.keras.layers.Dense(2 * latent_dim)])
decoder = tf.keras.Sequential([tf.keras.Input((latent_dim,)),
                               tf.keras.layers.Dense(original_dim, activation="sigmoid")])
x = tf.random.uniform((5, original_dim))
with tf.GradientTape() as tape:
    z_mean, z_log_var = tf.split(encoder(x), 2, axis=-1)
    z = z_mean + tf.exp(z_log_var / 2) * tf.random.normal(tf.shape(z_mean))
    x_decoded_mean = decoder(z)
    xent_loss = original_dim * tf.keras.losses.binary_crossentropy(x, x_decoded_mean)
    kl_loss = -0.5 * tf.reduce_sum(1 + z_log_var - tf.square(z_mean) - tf.exp(z_log_var), axis=-1)
    loss = tf.reduce_mean(xent_loss + kl_loss)
result = tape.gradient(loss, encoder.trainable_variables + decoder.trainable_variables)
