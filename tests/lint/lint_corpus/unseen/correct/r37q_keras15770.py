import numpy as np
import tensorflow as tf

cost_1, cost_2 = 1.0, 5.0
x_test = np.random.rand(16, 4).astype("float32")
y_test = np.random.randint(0, 2, (16, 10)).astype("float32")


def custom_loss(y_true, y_pred):
    y_true = tf.cast(y_true, tf.float32)
    y_pred = tf.cast(y_pred, tf.float32)
    cost = (1 - y_true) * cost_1 * y_pred + y_true * cost_2 * (1 - y_pred)
    mean_cost = tf.reduce_mean(cost, axis=-1)
    return mean_cost


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(10, activation="sigmoid")])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(custom_loss(y_test, model(x_test)))
result = tape.gradient(loss, model.trainable_variables)
