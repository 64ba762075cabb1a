import tensorflow as tf

v = tf.Variable(1.0)


def loss():
    v_add_1 = v + 1.0
    return 2.0 * v_add_1


with tf.GradientTape() as tape:
    value = loss()
result = tape.gradient(value, v)
