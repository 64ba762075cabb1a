import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="softmax")])
x = tf.ones((4, 3))
y = tf.one_hot([0, 1, 1, 0], 2)


def weighted_loss(y_true, y_pred):
    weights = tf.Variable([0.3, 0.7])  # <- GT020
    return -tf.reduce_mean(tf.reduce_sum(y_true * tf.math.log(y_pred) * weights, axis=-1))


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        loss = weighted_loss(y, model(x))
    return tape.gradient(loss, model.trainable_variables)


result = train_step(x, y)
