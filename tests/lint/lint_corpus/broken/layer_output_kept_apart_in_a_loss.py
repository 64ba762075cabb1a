import tensorflow as tf

features = tf.keras.Input((6,))
hidden = tf.keras.layers.Dense(5, activation="tanh")(features)
code_mean = tf.keras.layers.Dense(2)(hidden)
code_spread = tf.keras.layers.Dense(2)(hidden)
decoded = tf.keras.layers.Dense(6)(code_mean)
autoencoder = tf.keras.Model(features, decoded)


def penalty():
    return tf.reduce_mean(tf.exp(code_spread) + tf.square(code_mean))  # <- GT019


batch = tf.random.uniform((10, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(batch - autoencoder(batch))) + penalty()
result = tape.gradient(loss, autoencoder.trainable_variables)
