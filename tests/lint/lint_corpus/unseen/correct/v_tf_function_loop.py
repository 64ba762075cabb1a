import tensorflow as tf

w = tf.Variable([1.0, 1.0])


@tf.function
def step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.sin(w * x))
    g = tape.gradient(loss, w)
    w.assign_sub(0.1 * g)
    return g


for _ in range(3):
    result = step(tf.constant([0.5, 1.5]))
