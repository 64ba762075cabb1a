import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(6)])
decoder = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
X = tf.random.normal((2, 4))
with tf.GradientTape() as tape:
    h = encoder(X)
    mu, log_var = h[:, :3], h[:, 3:]
    X_recon = decoder(mu)
    recon_loss = tf.reduce_mean(tf.square(X - X_recon))
    kl_loss = -0.5 * tf.reduce_mean(1 + log_var - tf.square(mu) - tf.exp(log_var))
    loss = recon_loss + kl_loss
result = tape.gradient(loss, encoder.trainable_weights + decoder.trainable_weights)
