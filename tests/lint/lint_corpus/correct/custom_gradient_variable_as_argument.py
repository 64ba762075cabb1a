import tensorflow as tf

scale = tf.Variable(2.0)


@tf.custom_gradient
def clipped_scale(x, s):
    def grad(dy):
        return tf.clip_by_value(dy, -1.0, 1.0) * s, tf.reduce_sum(dy * x)
    return x * s, grad


x = tf.constant([0.5, 3.0])
with tf.GradientTape() as tape:
    tape.watch(x)
    y = tf.reduce_sum(clipped_scale(x, scale))
result = tape.gradient(y, [x, scale])
