import tensorflow as tf

values = tf.constant([2.0, 3.0])


@tf.function
def fun(x):
    for data in values:
        x = x * data
    return x


a = tf.constant(1.0)
with tf.GradientTape() as tape:
    tape.watch(a)
    c = fun(a)
result = tape.gradient(c, a)
