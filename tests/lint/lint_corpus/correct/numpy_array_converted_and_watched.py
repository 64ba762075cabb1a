import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(3, activation="tanh")])
sample = tf.convert_to_tensor(np.random.rand(2, 5).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(sample)
    score = tf.reduce_sum(model(sample)[:, 0])
result = tape.gradient(score, sample)
