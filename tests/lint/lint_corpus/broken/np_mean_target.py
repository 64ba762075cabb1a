import numpy as np
import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
result = tape.gradient(np.mean(y), x)  # <- GT002
