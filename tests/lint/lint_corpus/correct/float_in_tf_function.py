# Inside a tf.function, autograph makes float(t) a tf.cast: the path is kept and the gradient is real
# (outside one, float(t) leaves TensorFlow: broken/float_loss.py).
import tensorflow as tf

w = tf.Variable(2.0)


def loss_of(v):
    return tf.square(float(v * v))


@tf.function
def train_step():
    with tf.GradientTape() as tape:
        loss = loss_of(w)
    return tape.gradient(loss, w)


result = train_step()
