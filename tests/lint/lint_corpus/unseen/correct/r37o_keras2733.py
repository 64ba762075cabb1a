import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), tf.keras.layers.Conv2D(4, 3, activation="relu")])
input_img = tf.convert_to_tensor(np.random.randint(0, 255, size=(1, 8, 8, 3)).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(input_img)
    loss = tf.reduce_mean(model(input_img)[:, :, :, 0])
grads = tape.gradient(loss, input_img)
result = grads
