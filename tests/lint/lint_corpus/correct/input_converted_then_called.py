import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
images = np.ones((3, 2), np.float32)
with tf.GradientTape() as tape:
    x = tf.convert_to_tensor(images)
    tape.watch(x)
    loss = tf.reduce_mean(model(x))
result = tape.gradient(loss, x)
