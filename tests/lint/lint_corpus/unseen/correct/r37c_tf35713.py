import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((4, 3))
y = tf.constant([1.0, 2.0, 3.0, 4.0])


def pearson_loss(y_true, y_pred):
    a = y_true - tf.reduce_mean(y_true)
    b = tf.squeeze(y_pred) - tf.reduce_mean(y_pred)
    return -tf.reduce_sum(a * b) / (tf.norm(a) * tf.norm(b) + 1e-6)


with tf.GradientTape() as tape:
    loss = pearson_loss(y, model(x))
result = tape.gradient(loss, model.trainable_variables)[:1]
