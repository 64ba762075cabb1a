import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(4, activation="tanh"),
                             tf.keras.layers.Dense(1, activation="sigmoid")])
x = tf.random.normal((3, 5))
with tf.GradientTape() as tape:
    tape.watch(x)
    prediction = model(x)
grads = tape.gradient(prediction, x)
result = grads
