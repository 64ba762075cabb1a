import numpy as np
import tensorflow as tf
import keras


class toy_model(keras.Model):
    def __init__(self, **kwargs):
        super(toy_model, self).__init__()
        self.layers_list = []
        self.layers_list.append(keras.layers.Dense(units=10, activation="tanh", use_bias=True))
        self.layers_list.append(keras.layers.Dense(units=1, activation=None, use_bias=False))

    def call(self, x):
        for layer in self.layers_list:
            x = layer(x)
        return x


model = toy_model()
x = tf.convert_to_tensor(np.expand_dims(np.linspace(0, 10, num=20), axis=1), dtype=tf.float32)
model(x)
with tf.GradientTape(watch_accessed_variables=False) as tape:
    last_layer_weights = model.layers_list[-1].weights[0]
    tape.watch(last_layer_weights.value)
    out = model(x)
result = tape.gradient(out, last_layer_weights.value)
