import numpy as np
import tensorflow as tf

data = np.linspace(0.0, 1.0, 5).astype(np.float32)
w = tf.Variable(0.5)
with tf.GradientTape() as tape:
    pred = w * data
    loss = tf.reduce_mean((pred - np.float32(0.3)) ** 2)
result = tape.gradient(loss, w)
