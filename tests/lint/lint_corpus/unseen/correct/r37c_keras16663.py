import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
x = tf.random.normal((2, 3))
y_true = tf.constant([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]])


def loss(y_true, y_pred):
    soft_rank = tf.reduce_sum(tf.sigmoid(y_pred[:, :, None] - y_pred[:, None, :]), axis=-1)
    return tf.reduce_sum(tf.square(soft_rank - y_true))


with tf.GradientTape() as tape:
    value = loss(y_true, model(x))
result = tape.gradient(value, model.trainable_variables)
