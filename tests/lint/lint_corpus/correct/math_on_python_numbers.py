import math

import tensorflow as tf

x = tf.Variable(1.0)
with tf.GradientTape() as tape:
    y = tf.exp(x) * math.pi + math.sqrt(2.0) * x
result = tape.gradient(y, x)
