import numpy as np
import tensorflow as tf

w = tf.Variable([1.0, 2.0])


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.constant(w.numpy()) * 2.0)  # <- GT002
    return tape.gradient(loss, w)


result = train_step()
