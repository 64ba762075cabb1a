import tensorflow as tf

inputs = tf.keras.Input(shape=(3,))
hidden = tf.keras.layers.Dense(4, activation="tanh")(inputs)
outputs = tf.keras.layers.Dense(1)(hidden)
model = tf.keras.Model(inputs, outputs)
batch = tf.constant([[1.0, 2.0, 3.0], [0.0, -1.0, 1.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(batch) ** 2)
result = tape.gradient(loss, model.trainable_variables)
