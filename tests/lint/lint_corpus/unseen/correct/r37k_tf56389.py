import tensorflow as tf


def custom_loss(y_true, y_pred):
    return tf.reduce_mean(tf.abs(y_true - y_pred))


model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 3))
y = tf.random.normal((5, 1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = custom_loss(y, model(x))
    return tape.gradient(loss, model.trainable_variables)


result = train_step(x, y)
