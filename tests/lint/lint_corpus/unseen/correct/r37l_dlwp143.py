import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), tf.keras.layers.Conv2D(4, 3, name="block3_conv1")])
layer_model = tf.keras.Model(model.inputs, model.get_layer("block3_conv1").output)
input_img = tf.Variable(np.random.random((1, 8, 8, 3)).astype("float32") * 20 + 128.0)
with tf.GradientTape() as tape:
    loss = K.mean(layer_model(input_img)[:, :, :, 0])
grads = tape.gradient(loss, input_img)
result = grads
