import numpy as np
import tensorflow as tf

weights = tf.Variable([1.0, 2.0, 3.0])
with tf.GradientTape() as tape:
    scaled = weights * 3.0
    loss = np.mean(scaled)  # <- GT002
result = tape.gradient(loss, weights)
