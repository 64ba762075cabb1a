import numpy as np
import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 3.0
    loss = tf.convert_to_tensor(np.mean(y))  # <- GT002
result = tape.gradient(loss, x, unconnected_gradients=tf.UnconnectedGradients.ZERO)
