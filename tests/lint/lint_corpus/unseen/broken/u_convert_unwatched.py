import numpy as np
import tensorflow as tf

inputs = tf.convert_to_tensor(np.array([0.5, 1.5], dtype=np.float32))
model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
with tf.GradientTape() as tape:  # <- GT003
    score = model(inputs[None, :])
result = tape.gradient(score, inputs)
