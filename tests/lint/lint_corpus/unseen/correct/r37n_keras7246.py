import tensorflow as tf


def f(x):
    z = tf.identity(x)
    return z


inputs = tf.keras.Input((4,))
y1 = tf.keras.layers.Dense(3)(inputs)
y = tf.keras.layers.Lambda(f)(y1)
output = tf.keras.layers.Dense(1)(y)
model = tf.keras.Model(inputs, output)
x = tf.random.normal((8, 4))
target = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(target - model(x)))
result = tape.gradient(loss, model.trainable_variables)
