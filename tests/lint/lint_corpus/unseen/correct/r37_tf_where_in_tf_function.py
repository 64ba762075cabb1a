import tensorflow as tf

positions = tf.Variable(tf.random.uniform(shape=[4, 3]) + 0.6)


@tf.function
def step():
    with tf.GradientTape() as tape:
        near = tf.where(positions[:, 0] > 0.5)[:, 0]
        energy = tf.reduce_sum(tf.gather(positions, near) ** 2)
    return tape.gradient(energy, positions)


result = tf.convert_to_tensor(step())
