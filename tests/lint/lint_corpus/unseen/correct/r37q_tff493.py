import numpy as np
import tensorflow as tf

n_inputs = 6
init = "glorot_uniform"


def create_SK_model():
    modelF = tf.keras.Sequential([tf.keras.Input((n_inputs,)),
                                  tf.keras.layers.Dense(10, activation=tf.nn.relu, kernel_initializer=init),
                                  tf.keras.layers.Dense(100, activation=tf.nn.relu, kernel_initializer=init),
                                  tf.keras.layers.Dropout(0.5),
                                  tf.keras.layers.Dense(100, activation=tf.nn.relu, kernel_initializer=init),
                                  tf.keras.layers.Dropout(0.5),
                                  tf.keras.layers.Dense(1, activation=tf.nn.relu, kernel_initializer=init),
                                  ])
    return modelF


def loss_fn(y_true, y_pred):
    return tf.reduce_mean(tf.keras.losses.MSE(y_true, y_pred))


model = create_SK_model()
x = np.random.rand(16, n_inputs).astype("float32")
y = np.random.rand(16, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = loss_fn(y, model(x, training=True))
result = tape.gradient(loss, model.trainable_variables)
