import tensorflow as tf

inp = tf.keras.Input((5,))
hidden_layer = tf.keras.layers.Dense(2)
out_layer = tf.keras.layers.Dense(1)
model = tf.keras.Model(inp, out_layer(hidden_layer(inp)))
x = tf.random.normal((10, 5))
with tf.GradientTape() as tape:
    hidden = hidden_layer(x)
    loss = tf.reduce_sum(hidden)
result = tape.gradient(loss, hidden_layer.trainable_variables)
