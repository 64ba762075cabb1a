import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
x = tf.random.normal((6, 3))
y = tf.constant([[0.0], [1.0], [1.0], [0.0], [1.0], [0.0]])


def custom_loss(y_true, y_pred):
    return tf.reduce_mean(tf.square(y_true - y_pred))


with tf.GradientTape() as tape:
    loss = custom_loss(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
