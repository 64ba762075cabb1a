import numpy as np
import tensorflow as tf


def get_kld(p, p_hat):
    return p * tf.math.log(p) - p * tf.math.log(p_hat) + (1 - p) * tf.math.log(1 - p) - (1 - p) * tf.math.log(1 - p_hat)


def init_weights(shape):
    xinit = tf.keras.initializers.GlorotUniform()
    return tf.Variable(xinit(shape))


n_in, n_out, p, lval, beta = 16, 4, 0.1, 0.001, 3
W1, b1 = init_weights((n_out, n_in)), init_weights((n_out, 1))
W2, b2 = init_weights((n_in, n_out)), init_weights((n_in, 1))
activation = tf.nn.sigmoid
optimizer = tf.compat.v1.train.GradientDescentOptimizer(0.1)
X = tf.cast(np.random.rand(n_in, 10), tf.float32)
weight_list = [W1, W2]
with tf.GradientTape() as tape:
    A1 = activation(tf.matmul(W1, X) + b1)
    X_hat = activation(tf.matmul(W2, A1) + b2)
    p_hat = tf.reduce_mean(A1, axis=0)
    kld = get_kld(p, p_hat)
    diff = X - X_hat
    reg = 0.5*lval*(tf.nn.l2_loss(W1) + tf.nn.l2_loss(W2))
    cost = tf.reduce_mean(tf.reduce_sum(diff**2, axis=0)) + reg + beta*tf.reduce_mean(kld)
grads = tape.gradient(cost, weight_list)
optimizer.apply_gradients(zip(grads, weight_list))
result = grads
