import tensorflow as tf

timestep = 6
generator = tf.keras.Sequential([tf.keras.Input((timestep,)), tf.keras.layers.Dense(timestep * 4),
                                 tf.keras.layers.Reshape((timestep, 4))])
discriminator = tf.keras.Sequential([tf.keras.Input((timestep,)), tf.keras.layers.Dense(1, activation="sigmoid")])
discriminator.trainable = False
noise = tf.random.normal((8, timestep))
with tf.GradientTape() as tape:
    b = generator(noise)
    c = tf.reduce_sum(tf.nn.softmax(b, axis=-1) * tf.range(4, dtype=tf.float32), axis=-1)
    output_d = discriminator(c)
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(tf.ones_like(output_d), output_d))
result = tape.gradient(loss, generator.trainable_variables)
