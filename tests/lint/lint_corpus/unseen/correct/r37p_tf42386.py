import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])


def get_loss(y_true, y_pred):
    loss = tf.reduce_mean(tf.square(y_true - y_pred))
    return loss


x = tf.random.normal((4, 3))
y = tf.random.normal((4, 2))
with tf.GradientTape() as tape:
    loss = get_loss(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
