import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((8, 8, 1)), tf.keras.layers.Conv2D(4, 3, activation="relu", use_bias=False),
                             tf.keras.layers.Conv2D(2, 1, use_bias=False)])
layer_model = tf.keras.Model(model.inputs, model.layers[0].output)
input_img = tf.Variable(np.random.random((1, 8, 8, 1)).astype("float32"))
with tf.GradientTape() as tape:
    loss = tf.keras.backend.mean(layer_model(input_img)[:, :, :, 0])
grads = tape.gradient(loss, input_img)
result = grads
