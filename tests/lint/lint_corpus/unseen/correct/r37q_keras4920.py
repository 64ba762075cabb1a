import tensorflow as tf
from tensorflow.keras import backend as K


def custom_metric(y_true, y_pred, strick=1):
    diff = K.abs(y_true - y_pred)
    bound = 1. if strick else 2.
    return K.mean(K.sigmoid(4.0 * (diff - bound)))


def error_strick(y_true, y_pred):
    return custom_metric(y_true, y_pred, strick=1)


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                             tf.keras.layers.Dense(1)])
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1)) * 3.0
with tf.GradientTape() as tape:
    loss = error_strick(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
