import numpy as np
import tensorflow as tf
from tensorflow import keras

inputs = keras.Input((16, 16, 3))
x = keras.layers.Conv2D(4, 3, activation="relu", name="mixed2")(inputs)
x = keras.layers.Conv2D(4, 3, activation="relu", name="mixed3")(x)
model = keras.Model(inputs, x)
layer_contributions = {"mixed2": 0.2, "mixed3": 3.0}
layer_dict = dict([(layer.name, layer) for layer in model.layers])
feature_extractor = keras.Model(inputs, {name: layer_dict[name].output for name in layer_contributions})
dream = tf.random.uniform((1, 16, 16, 3))
with tf.GradientTape() as gtape:
    gtape.watch(dream)
    features = feature_extractor(dream)
    loss = 0.0
    for layer_name in layer_contributions:
        coeff = layer_contributions[layer_name]
        activation = features[layer_name]
        scaling = float(np.prod(activation.shape[1:]))
        loss = loss + coeff * tf.reduce_sum(tf.square(activation[:, 2:-2, 2:-2, :])) / scaling
grads = gtape.gradient(loss, dream)[0]
result = grads
