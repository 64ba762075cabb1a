import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.ones((4, 3))
y = tf.zeros((4, 2))


class MyLoss(tf.keras.losses.Loss):
    def call(self, y_true, y_pred):
        err = y_true - y_pred
        print(err.numpy())  # <- GT002
        return tf.reduce_mean(tf.square(err))


loss_object = MyLoss()


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        value = loss_object(y, model(x))
    return tape.gradient(value, model.trainable_variables)


result = train_step(x, y)
