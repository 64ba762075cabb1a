import tensorflow as tf

inputs = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(3, name="hidden")(inputs)
outputs = tf.keras.layers.Dense(1)(hidden)
model = tf.keras.Model(inputs, outputs)
both = tf.keras.Model(model.inputs, [model.get_layer("hidden").output, model.output])
x = tf.random.normal((2, 4))
with tf.GradientTape() as tape:
    hidden_value, prediction = both(x)
result = tape.gradient(prediction, hidden_value)
