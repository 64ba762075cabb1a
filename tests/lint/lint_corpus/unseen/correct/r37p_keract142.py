import tensorflow as tf

inp = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(8, activation="relu")(inp)
out = tf.keras.layers.Dense(1, activation="sigmoid")(hidden)
model = tf.keras.Model(inp, out)


def custom_loss(y_true, y_pred, delta):
    out = tf.clip_by_value(y_pred, 1e-8, 1 - 1e-8)
    log_lik = y_true * tf.math.log(out)
    return tf.reduce_sum(-log_lik * delta)


x = tf.random.normal((8, 4))
y = tf.cast(tf.random.uniform((8, 1)) > 0.5, tf.float32)
delta = tf.random.uniform((8, 1), 0.5, 1.5)
with tf.GradientTape() as tape:
    loss = custom_loss(y, model(x), delta)
result = tape.gradient(loss, model.trainable_variables)
