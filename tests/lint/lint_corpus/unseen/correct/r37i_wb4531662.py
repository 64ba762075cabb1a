import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), tf.keras.layers.Conv2D(4, 3, name="block3_conv1")])
activation_model = tf.keras.Model(inputs=model.inputs, outputs=model.get_layer("block3_conv1").output)
inputs = tf.convert_to_tensor(np.random.random((1, 8, 8, 3)).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(inputs)
    preds = activation_model(inputs)
    loss = tf.reduce_mean(preds[:, :, :, 0])
result = tape.gradient(loss, inputs)
