import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((16, 16, 3))
conv = tf.keras.layers.Conv2D(8, 3, activation="relu", name="conv2d_13")(inputs)
flat = tf.keras.layers.Flatten()(conv)
logits = tf.keras.layers.Dense(4, name="logits")(flat)
outputs = tf.keras.layers.Activation("softmax")(logits)
model = tf.keras.Model(inputs, outputs)
kernel = np.zeros((flat.shape[-1], 4), "float32")
kernel[:, 0] = 5.0
model.get_layer("logits").set_weights([kernel, np.zeros(4, "float32")])
grad_model = tf.keras.Model(inputs, [model.get_layer("conv2d_13").output, model.get_layer("logits").output])
x = tf.random.uniform((1, 16, 16, 3), 1.0, 2.0)
with tf.GradientTape() as tape:
    conv_output, scores = grad_model(x)
    image_0 = scores[:, 0]
grads = tape.gradient(image_0, conv_output)
result = tf.reduce_mean(grads, axis=(0, 1, 2))
