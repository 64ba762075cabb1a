import tensorflow as tf

data = tf.constant([1.0, 2.0, 3.0], dtype=tf.double)
par = tf.Variable(0.5, dtype=tf.double)


@tf.function
def training_step(data, par):
    loss = tf.constant(0, dtype=tf.double)
    with tf.GradientTape() as tape:
        for d in data:
            loss += (d - par) ** 2
    return tape.gradient(loss, par)


result = training_step(data, par)
