import tensorflow as tf

inputs = tf.keras.Input(shape=(3,))
hidden = tf.keras.layers.Dense(4)(inputs)
normalised = tf.keras.layers.BatchNormalization()(hidden)
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(normalised))
optimizer = tf.keras.optimizers.SGD(0.1)
x = tf.random.normal((8, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x, training=True) ** 2)
result = tape.gradient(loss, model.variables)  # <- GT022
optimizer.apply_gradients(zip(result, model.variables))
