import tensorflow as tf


def nll(y_true, y_pred):
    loss = -tf.math.xlogy(y_true, y_pred) - tf.math.xlogy(1 - y_true, 1 - y_pred)
    return loss


model = tf.keras.Sequential([tf.keras.Input((8,)), tf.keras.layers.Dense(3, activation="softmax")])
x = tf.random.normal((4, 8))
y = tf.one_hot([0, 1, 2, 1], 3)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(nll(y, model(x)))
result = tape.gradient(loss, model.trainable_variables)
