import tensorflow as tf


def mda(y_true, y_pred):
    return tf.reduce_sum(y_pred[:, 1:] - y_pred[:, :-1])


m = tf.keras.Sequential([tf.keras.Input((9,)), tf.keras.layers.Dense(9)])
x_train = tf.random.normal((1, 9))
y_train = tf.random.normal((1, 9))
with tf.GradientTape() as tape:
    loss = mda(y_train, m(x_train))
result = tape.gradient(loss, m.trainable_variables)
