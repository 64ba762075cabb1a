import tensorflow as tf

inputs = tf.keras.Input(shape=(2,))
a = tf.keras.layers.Dense(1, name="a")(inputs)
b = tf.keras.layers.Dense(1, name="b")(inputs)
model = tf.keras.Model(inputs, [a, b])
x = tf.constant([[1.0, 2.0]])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    outputs = model(x)
result = [tape.gradient(o, x) for o in outputs]
