import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense, Flatten, Input, Lambda, Reshape
from tensorflow.keras.models import Model

latent_dim = 2
input_img = Input(shape=(4, 4, 1), name='encoder_input')
x = Dense(8, activation='relu')(Flatten()(input_img))
z_mu = Dense(latent_dim, name='latent_mu')(x)
z_sigma = Dense(latent_dim, name='latent_sigma')(x)
z = Lambda(lambda a: a[0] + K.exp(a[1] / 2) * K.random_normal(K.shape(a[0])), name='z')([z_mu, z_sigma])
z_decoded = Reshape((4, 4, 1))(Dense(16, activation='sigmoid')(z))


class CustomLayer(keras.layers.Layer):
    def vae_loss(self, x, z_decoded, z_mu, z_sigma):
        recon_loss = keras.metrics.binary_crossentropy(K.flatten(x), K.flatten(z_decoded))
        kl_loss = -5e-4 * K.mean(1 + z_sigma - K.square(z_mu) - K.exp(z_sigma), axis=-1)
        return K.mean(recon_loss + kl_loss)

    def call(self, inputs):
        self.add_loss(self.vae_loss(*inputs))
        return inputs[0]


vae = Model(input_img, CustomLayer()([input_img, z_decoded, z_mu, z_sigma]), name='vae')
X = tf.random.uniform((3, 4, 4, 1))
with tf.GradientTape() as tape:
    vae(X)
    loss = tf.add_n(vae.losses)
result = tape.gradient(loss, vae.trainable_variables)
