import tensorflow as tf


class Sampling(tf.keras.layers.Layer):
    def call(self, inputs):
        mean, log_var = inputs
        return tf.random.normal(tf.shape(log_var)) * tf.exp(log_var / 2) + mean


tf.random.set_seed(42)
codings_size = 2
inputs = tf.keras.layers.Input(shape=[4, 4])
Z = tf.keras.layers.Flatten()(inputs)
Z = tf.keras.layers.Dense(8, activation="relu")(Z)
codings_mean = tf.keras.layers.Dense(codings_size)(Z)
codings_log_var = tf.keras.layers.Dense(codings_size)(Z)
codings = Sampling()([codings_mean, codings_log_var])
variational_encoder = tf.keras.Model(inputs=[inputs], outputs=[codings_mean, codings_log_var, codings])
decoder_inputs = tf.keras.layers.Input(shape=[codings_size])
outputs = tf.keras.layers.Reshape([4, 4])(tf.keras.layers.Dense(16)(decoder_inputs))
variational_decoder = tf.keras.Model(inputs=[decoder_inputs], outputs=[outputs])
_, _, codings = variational_encoder(inputs)
variational_ae = tf.keras.Model(inputs=[inputs], outputs=[variational_decoder(codings)])
X = tf.random.uniform((3, 4, 4))
with tf.GradientTape() as tape:
    mean, log_var, codings = variational_encoder(X)
    latent_loss = -0.5 * tf.reduce_sum(1 + log_var - tf.exp(log_var) - tf.square(mean), axis=-1)
    loss = tf.reduce_mean(tf.square(variational_decoder(codings) - X)) + tf.reduce_mean(latent_loss) / 16.
result = tape.gradient(loss, variational_ae.trainable_variables)
