import tensorflow as tf

units = 3


def binary_mask(x):
    pred1 = x[:, :units]
    pred2 = x[:, units:]
    mask = tf.sigmoid(pred1 - pred2)
    return mask


inputs = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(2 * units)(inputs)
outputs = tf.keras.layers.Lambda(binary_mask, output_shape=(units,))(hidden)
model = tf.keras.Model(inputs, outputs)
x = tf.random.normal((8, 4))
y = tf.cast(tf.random.uniform((8, units)) > 0.5, tf.float32)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x)))
result = tape.gradient(loss, model.trainable_variables)
