import numpy as np
import tensorflow as tf

weights = tf.Variable(np.ones(5), dtype="float64")
chosen_action = tf.argmax(weights, 0)
reward = tf.constant([1.0], dtype="float64")
with tf.GradientTape() as tape:
    resp_weight = tf.gather(weights, chosen_action)
    loss = -tf.math.log(resp_weight) * reward
grads = tape.gradient(loss, [weights])
tf.keras.optimizers.SGD(learning_rate=0.001).apply_gradients(zip(grads, [weights]))
result = grads
