import tensorflow as tf


def r2_score(y_true, y_pred):
    residual = tf.reduce_sum(tf.square(y_true - y_pred))
    return 1.0 - residual / tf.reduce_sum(tf.square(y_true - tf.reduce_mean(y_true)))


model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
y = tf.random.normal((8, 1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        pred = model(x)
        loss = tf.reduce_mean(tf.square(y - pred))
    grads = tape.gradient(loss, model.trainable_variables)
    return grads, r2_score(y, pred)


result = train_step(x, y)
