import tensorflow as tf

tf.config.run_functions_eagerly(True)
w = tf.Variable([0.5, 1.5])


@tf.function
def step(x):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x)
        print(loss.numpy())
    return tape.gradient(loss, w)


result = step(tf.constant([1.0, 2.0]))
tf.config.run_functions_eagerly(False)
