import tensorflow as tf

features = tf.keras.Input((6,))
hidden = tf.keras.layers.Dense(5, activation="tanh")(features)
code_mean = tf.keras.layers.Dense(2)(hidden)
code_spread = tf.keras.layers.Dense(2)(hidden)
decoded = tf.keras.layers.Dense(6)(code_mean)
autoencoder = tf.keras.Model(features, [decoded, code_mean, code_spread])


def penalty(mean, spread):
    return tf.reduce_mean(tf.exp(spread) + tf.square(mean))


batch = tf.random.uniform((10, 6))
with tf.GradientTape() as tape:
    out, mean, spread = autoencoder(batch)
    loss = tf.reduce_mean(tf.square(batch - out)) + penalty(mean, spread)
result = tape.gradient(loss, autoencoder.trainable_variables)
