import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.ones((4, 3))
y = tf.zeros((4, 2))


def loss_fn(y_true, y_pred):
    err = y_true - y_pred
    print(err.numpy().max())
    return tf.reduce_mean(tf.square(err))


def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = loss_fn(y, model(x))
    return tape.gradient(loss, model.trainable_variables)


result = train_step(x, y)
