import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(1)])
variables = model.trainable_variables
layer = tf.keras.layers.Dense(2)
layer.build((None, 3))
layer_variables = layer.trainable_variables
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x)) + tf.reduce_sum(layer(x))
result = tape.gradient(loss, variables + layer_variables)
