import tensorflow as tf


def loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(6)])
x = tf.random.normal((3, 4))
y = tf.random.normal((3, 6))
with tf.GradientTape() as tape:
    value = loss(y, model(x))
result = tape.gradient(value, model.trainable_variables)
