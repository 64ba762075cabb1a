import tensorflow as tf

x = tf.constant([0.5, 1.0])
with tf.GradientTape() as tape:
    tape.watch(x)

    def f(v):
        return tf.reduce_sum(tf.tanh(v) * v)

    y = f(x)
result = tape.gradient(y, x)
