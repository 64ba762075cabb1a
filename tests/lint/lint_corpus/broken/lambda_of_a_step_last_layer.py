import tensorflow as tf


def step(x):
    return tf.round(x)  # <- GT010


model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="sigmoid"),
                             tf.keras.layers.Lambda(step)])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - 1.0) ** 2)
result = tape.gradient(loss, model.trainable_variables)
