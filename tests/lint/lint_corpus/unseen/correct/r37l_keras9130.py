import numpy as np
import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(5)])
x_train = np.ones((1, 4), dtype=np.float32)
y_train = np.zeros((1, 1), dtype=np.float32)
out1 = tf.keras.layers.Lambda(lambda x: tf.reduce_sum(x, axis=-1, keepdims=True), name="sums")(net.outputs[0])


def py_func(x):
    tensor = tf.compat.v1.py_func(lambda y: y, [x], tf.float32)
    tensor.set_shape(x.shape)
    return tensor


out2 = tf.keras.layers.Lambda(py_func, name="py_func")(out1)
facenet = tf.keras.Model(net.inputs, out1)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.abs(y_train - facenet(x_train)))
result = tape.gradient(loss, facenet.trainable_variables)
