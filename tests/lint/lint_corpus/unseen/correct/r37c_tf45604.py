import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                                 tf.keras.layers.Dense(2)])
noise = tf.random.normal((6, 4))
with tf.GradientTape() as gen_tape:
    z = generator(noise, training=True)
    loss = -tf.reduce_mean(z)
result = gen_tape.gradient(loss, generator.trainable_variables)
