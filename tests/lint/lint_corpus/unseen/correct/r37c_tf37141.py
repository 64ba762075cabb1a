import tensorflow as tf

enc = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(2)])
dec = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(4)])
disc = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((8, 4))


def compute_losses(x):
    z = enc(x)
    z_gen = tf.random.normal(tf.shape(z))
    rec = tf.reduce_mean(tf.square(x - dec(z)))
    latent = tf.reduce_mean(disc(z_gen) ** 2) - tf.reduce_mean(disc(z))
    return rec, -latent


with tf.GradientTape() as vae_tape, tf.GradientTape() as disc_tape:
    vae_loss, disc_loss = compute_losses(x)
vae_grads = vae_tape.gradient(vae_loss, enc.trainable_variables + dec.trainable_variables)
result = disc_tape.gradient(disc_loss, disc.trainable_variables)
