import tensorflow as tf

inputs = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(3, name="hidden")(inputs)
outputs = tf.keras.layers.Dense(1)(hidden)
model = tf.keras.Model(inputs, outputs)
x = tf.random.normal((2, 4))
with tf.GradientTape() as tape:
    prediction = model(x)
result = tape.gradient(prediction, model.get_layer("hidden").output)  # <- GT019
