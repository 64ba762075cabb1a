import math

import tensorflow as tf

x = tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = math.exp(x)  # <- GT002
result = tape.gradient(y, x)
