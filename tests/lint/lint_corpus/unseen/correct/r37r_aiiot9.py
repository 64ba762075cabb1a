import tensorflow as tf

input_shape = 8
latent_dim = 2
encoder_inputs = tf.keras.Input(shape=(input_shape,))
h = tf.keras.layers.Dense(4, activation="relu")(encoder_inputs)
z_mean = tf.keras.layers.Dense(latent_dim)(h)
outputs = tf.keras.layers.Dense(input_shape, activation="sigmoid")(z_mean)
vae = tf.keras.Model(encoder_inputs, outputs)

x = tf.random.uniform((4, input_shape))
with tf.GradientTape() as tape:
    out = vae(x)
    # Loss Function
    reconstruction_loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(x, out))
    reconstruction_loss *= input_shape
result = tape.gradient(reconstruction_loss, vae.trainable_variables)
