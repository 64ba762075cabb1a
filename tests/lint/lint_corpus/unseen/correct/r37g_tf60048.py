import tensorflow as tf

elems = tf.ones(shape=[2])


def init_tensor_array(elems):
    ta = tf.TensorArray(dtype=tf.float32, size=4, dynamic_size=True)
    ta = ta.write(0, elems)
    return ta


with tf.GradientTape() as tape:
    tape.watch(elems)
    t = init_tensor_array(elems).stack()
result = tape.jacobian(t, elems)
