import tensorflow as tf


def mse(prediction, target):
    return tf.reduce_mean(tf.square(prediction - target))


def forward(params, inputs):
    w, b = params
    return inputs * w + b


params = [tf.Variable(0.5), tf.Variable(0.1)]
inputs = tf.constant([1.0, 2.0, 3.0])
targets = tf.constant([2.0, 4.0, 6.0])
with tf.GradientTape() as tape:
    loss = mse(forward(params, inputs), targets)
result = tape.gradient(loss, params)
