# Inside a tf.function, autograph makes int(t) a tf.cast to an integer type: no gradient through it.
import tensorflow as tf

w = tf.Variable(2.5)


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = tf.square(int(w * w))  # <- GT010
    return tape.gradient(loss, w)


result = train_step()
