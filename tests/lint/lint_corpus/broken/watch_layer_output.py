import tensorflow as tf

inputs = tf.keras.Input((5,))
code = tf.keras.layers.Dense(3, activation="tanh", name="code")(inputs)
model = tf.keras.Model(inputs, tf.keras.layers.Dense(2)(code))
x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    tape.watch(model.get_layer("code").output)  # <- GT019
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.get_layer("code").output)
