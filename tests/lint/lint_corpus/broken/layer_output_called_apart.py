import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(4, activation="relu"),
                             tf.keras.layers.Dense(2)])
x = tf.random.normal((3, 5))
with tf.GradientTape() as tape:
    hidden = model.layers[0](x)
    tape.watch(hidden)
    score = tf.reduce_sum(model(x)[:, 1])
result = tape.gradient(score, hidden)  # <- GT017
