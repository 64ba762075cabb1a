import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(4, activation="relu"),
                             tf.keras.layers.Dense(3, activation="softmax")])
x = tf.random.normal((2, 6))
with tf.GradientTape() as tape:
    first_layer_output = model.layers[0](x)
    tape.watch(first_layer_output)
    output = model.layers[1](first_layer_output)[:, 0]
result = tape.gradient(output, first_layer_output)
