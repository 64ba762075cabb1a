import numpy as np
import tensorflow as tf

w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.sin(w))
grad = tape.gradient(loss, w)
grad_np = grad.numpy()
print(np.linalg.norm(grad_np), float(loss))
result = grad
