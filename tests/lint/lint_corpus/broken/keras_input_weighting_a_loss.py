import tensorflow as tf

inputs = tf.keras.Input((3,))
weights = tf.keras.Input((1,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
x = tf.random.normal((5, 3))
y = tf.random.normal((5, 1))
with tf.GradientTape() as tape:
    error = tf.square(y - model(x)) * weights
    loss = tf.reduce_mean(error)  # <- GT019
result = tape.gradient(loss, model.trainable_variables)
