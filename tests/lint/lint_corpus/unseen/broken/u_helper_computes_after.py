import tensorflow as tf


def loss_of(pred):
    return tf.reduce_mean(pred ** 2)


w = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    pred = w * 2.0
loss = loss_of(pred)  # <- GT011
result = tape.gradient(loss, w)
