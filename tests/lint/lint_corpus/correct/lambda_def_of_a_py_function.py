import numpy as np
import tensorflow as tf


def doubled(t):
    out = tf.py_function(lambda a: a * 2, [t], tf.float32)
    out.set_shape(t.shape)
    return out


inp = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(3)(inp)
net = tf.keras.Model(inp, tf.keras.layers.Lambda(doubled)(hidden))
x = np.ones((5, 4), dtype=np.float32)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(net(x))
result = tape.gradient(loss, net.trainable_variables)
