import tensorflow as tf

x = tf.constant([1.0, 2.0])


@tf.function
def step(x):
    w = tf.Variable([0.5, 0.5])  # <- GT020
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x)
    return tape.gradient(loss, w)


result = step(x)
