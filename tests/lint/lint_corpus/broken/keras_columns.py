import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(3, activation="tanh")])
inputs = tf.constant([[0.1, 0.2], [0.3, 0.4]])
with tf.GradientTape(persistent=True) as tape:
    tape.watch(inputs)
    outputs = model(inputs)
result = []
for j in range(3):
    column = outputs[:, j]  # <- GT001
    result.append(tape.gradient(column, inputs))
