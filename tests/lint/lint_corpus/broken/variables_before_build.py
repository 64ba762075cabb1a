import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.1)
variables = model.trainable_variables  # <- GT021
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x))
result = tape.gradient(loss, variables)
optimizer.apply_gradients(zip(result, variables))
