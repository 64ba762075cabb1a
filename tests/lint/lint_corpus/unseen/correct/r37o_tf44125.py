import numpy as np
import tensorflow as tf


def binarize(d):
    x1, x2 = d
    return x1 * x2


inp = tf.keras.Input((1,))
var = tf.keras.layers.Dense(1, activation="sigmoid")(inp)
out = tf.keras.layers.Lambda(binarize)([inp, var])
model = tf.keras.Model(inp, out)
x = np.random.normal(size=(128, 1)).astype("float32")
y = (x >= 0).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x)))
result = tape.gradient(loss, model.trainable_variables)
