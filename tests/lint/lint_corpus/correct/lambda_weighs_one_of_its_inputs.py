import tensorflow as tf


def gate(parts):
    signal, score = parts
    hard = tf.cast(score > 0.5, "float32")
    return signal * (score + tf.stop_gradient(hard - score))


inputs = tf.keras.Input((3,))
score = tf.keras.layers.Dense(3, activation="sigmoid")(inputs)
gated = tf.keras.layers.Lambda(gate)([inputs, score])
model = tf.keras.Model(inputs, gated)
x = tf.random.normal((5, 3))
y = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x)))
result = tape.gradient(loss, model.trainable_variables)
