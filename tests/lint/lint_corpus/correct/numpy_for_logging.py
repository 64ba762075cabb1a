import numpy as np
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
history = []
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(w ** 2)
    history.append(loss.numpy())
    print("loss", float(loss), np.round(loss.numpy(), 2))
result = tape.gradient(loss, w)
