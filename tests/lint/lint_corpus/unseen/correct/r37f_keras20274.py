import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(8, activation="tanh"), tf.keras.layers.Dense(1)])
X_train = tf.random.uniform((10, 2))
data_train = tf.random.uniform((10, 1))


def get_grad(model, X_train, data_train):
    with tf.GradientTape(persistent=True) as tape:
        loss = tf.reduce_mean((model(X_train) - data_train) ** 2)
    g = tape.gradient(loss, model.trainable_variables)
    del tape
    return loss, g


loss, result = get_grad(model, X_train, data_train)
