import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(8, activation="tanh"),
                             tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 2))
with tf.GradientTape() as tape:
    tape.watch(x)
    y = model(x)
result = tf.gather(tape.gradient(y, x), [0], axis=1)
