import tensorflow as tf

inputs = tf.keras.Input((5,))
codes = tf.keras.layers.Dense(3, activation="relu")(inputs)
outputs = tf.keras.layers.Dense(5)(codes)
model = tf.keras.Model(inputs, outputs)
model.add_loss(1e-3 * tf.reduce_sum(tf.abs(codes)))  # <- GT019

x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - x)) + tf.add_n(model.losses)
result = tape.gradient(loss, model.trainable_variables)
