import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((16, 16, 3))
x = tf.keras.layers.Conv2D(8, 3, activation="relu", name="block1_conv1")(inputs)
x = tf.keras.layers.Conv2D(8, 3, activation="relu", name="block1_conv2")(x)
model = tf.keras.Model(inputs, x)
layer_dict = dict([(layer.name, layer) for layer in model.layers])
feature_model = tf.keras.Model(model.inputs, layer_dict["block1_conv2"].output)
filter_index = 0
input_img = tf.convert_to_tensor(np.random.random((1, 16, 16, 3)).astype("float32") * 20 + 128.0)
with tf.GradientTape() as tape:
    tape.watch(input_img)
    layer_output = feature_model(input_img)
    loss = tf.reduce_mean(layer_output[:, :, :, filter_index])
grads = tape.gradient(loss, input_img)
result = grads
