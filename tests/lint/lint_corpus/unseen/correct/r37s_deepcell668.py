import numpy as np
import tensorflow as tf
from tensorflow.keras import layers

inputs = layers.Input((8, 8, 2))
features = layers.Conv2D(4, 3, padding="same", activation="relu")(inputs)
heads = {}
for i in range(2):
    x = layers.Conv2D(4, 1, name=f"conv_0_semantic_{i}", activation="relu")(features)
    heads[f"semantic_{i}"] = layers.Conv2D(1, 1, name=f"semantic_{i}")(x)
model = tf.keras.Model(inputs, heads)
loss = {name: tf.keras.losses.MeanSquaredError() for name in heads}
optimizer = tf.keras.optimizers.Adam()
x = np.random.rand(4, 8, 8, 2).astype("float32")
y = {name: np.random.rand(4, 8, 8, 1).astype("float32") for name in heads}
with tf.GradientTape() as tape:
    outputs = model(x)
    total = tf.add_n([loss[name](y[name], outputs[name]) for name in loss])
grads = tape.gradient(total, model.trainable_variables)
result = grads
