import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.layers.Dense(2)])
discriminator = tf.keras.Sequential([tf.keras.layers.Dense(1)])
noise = tf.random.normal((4, 3), seed=2)
real = tf.random.normal((4, 2), seed=3)
with tf.GradientTape() as gen_tape, tf.GradientTape() as disc_tape:
    fake = generator(noise, training=True)
    real_score = discriminator(real, training=True)
    fake_score = discriminator(fake, training=True)
    gen_loss = -tf.reduce_mean(fake_score)
    disc_loss = tf.reduce_mean(fake_score ** 2) - tf.reduce_mean(real_score)
gen_grads = gen_tape.gradient(gen_loss, generator.trainable_variables)
disc_grads = disc_tape.gradient(disc_loss, discriminator.trainable_variables)
result = [gen_grads, disc_grads]
