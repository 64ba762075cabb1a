import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="tanh"), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.01)
loss_fn = tf.keras.losses.MeanSquaredError()
x = tf.constant([[1.0, 2.0], [3.0, 4.0], [-1.0, 0.5]])
y = tf.constant([[1.0], [0.0], [2.0]])
with tf.GradientTape() as tape:
    predictions = model(x, training=True)
    loss = loss_fn(y, predictions)
grads = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
result = grads
