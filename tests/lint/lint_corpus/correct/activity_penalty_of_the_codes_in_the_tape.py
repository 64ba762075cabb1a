import tensorflow as tf

inputs = tf.keras.Input((5,))
codes = tf.keras.layers.Dense(3, activation="relu")(inputs)
outputs = tf.keras.layers.Dense(5)(codes)
model = tf.keras.Model(inputs, [outputs, codes])

x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    reconstructed, c = model(x)
    loss = tf.reduce_mean(tf.square(reconstructed - x)) + 1e-3 * tf.reduce_sum(tf.abs(c))
result = tape.gradient(loss, model.trainable_variables)
