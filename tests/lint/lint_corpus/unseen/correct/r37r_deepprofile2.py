import tensorflow as tf
from tensorflow.keras import backend as K
from tensorflow.keras.layers import Dense, Input, Lambda


def sampling(args):
    z_mean, z_log_var = args
    epsilon = K.random_normal(shape=K.shape(z_mean), mean=0., stddev=1.0)
    return z_mean + K.exp(z_log_var / 2) * epsilon


def vae_loss(x_input, x_decoded, z_mean, z_log_var):
    reconstruction_loss = original_dim * tf.keras.metrics.mse(x_input, x_decoded)
    kl_loss = - 0.5 * K.sum(1 + z_log_var - K.square(z_mean) - K.exp(z_log_var), axis=-1)
    return K.mean(reconstruction_loss + (K.get_value(beta) * kl_loss))


original_dim, latent_dim = 10, 2
beta = K.variable(1)
x = Input(shape=(original_dim, ))
net = Dense(6, activation='relu')(x)
z_mean = Dense(latent_dim)(net)
z_log_var = Dense(latent_dim)(net)
z = Lambda(sampling, output_shape=(latent_dim,))([z_mean, z_log_var])
x_decoded_mean = Dense(original_dim)(Dense(6, activation='relu')(z))
vae = tf.keras.Model(x, [x_decoded_mean, z_mean, z_log_var])
data = tf.random.normal((8, original_dim))
with tf.GradientTape() as tape:
    decoded, mean, log_var = vae(data)
    loss = vae_loss(data, decoded, mean, log_var)
result = tape.gradient(loss, vae.trainable_variables)
