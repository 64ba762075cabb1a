import numpy as np
import tensorflow as tf


def loss_fn(y_true, y_pred):
    return np.mean((y_true - y_pred.numpy()) ** 2)  # <- GT002


w = tf.Variable([0.5, 1.5])
x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:
    pred = w * x
    loss = loss_fn(np.array([1.0, 1.0], dtype=np.float32), pred)
result = tape.gradient(loss, w)
