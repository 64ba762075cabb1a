import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8),
                                 tf.keras.layers.BatchNormalization(), tf.keras.layers.LeakyReLU(),
                                 tf.keras.layers.Dense(2)])
discriminator = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
noise = tf.random.normal((16, 4))
with tf.GradientTape() as gen_tape:
    generated = generator(noise, training=True)
    gen_loss = tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(tf.ones((16, 1)), discriminator(generated)))
result = gen_tape.gradient(gen_loss, generator.trainable_variables)
