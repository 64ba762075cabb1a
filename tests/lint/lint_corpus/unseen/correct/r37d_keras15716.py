import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4), tf.keras.layers.PReLU(),
                             tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 3))
y = tf.random.normal((5, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y) ** 2)
result = tape.gradient(loss, model.trainable_variables)
