import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((8, 8, 3))
last_conv = tf.keras.layers.Conv2D(4, 3, activation="relu")(inputs)
pooled = tf.keras.layers.GlobalAveragePooling2D()(last_conv)
logits = tf.keras.layers.Dense(3)(pooled)
model = tf.keras.Model(inputs, [last_conv, logits])
model.layers[-1].set_weights([np.array([[60.0, -60.0, 0.0]] * 4, "float32"), np.zeros(3, "float32")])
img = tf.random.uniform((1, 8, 8, 3), 5.0, 10.0)
with tf.GradientTape() as tape:
    conv_output, scores = model(img)
    class_output = scores[:, tf.argmax(scores[0])]
result = tape.gradient(class_output, conv_output)
