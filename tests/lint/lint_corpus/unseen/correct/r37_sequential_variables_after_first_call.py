import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
x = tf.ones((4, 2))
y = tf.ones((4, 1))
optimizer = tf.keras.optimizers.SGD(0.1)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y - 1.0) ** 2)
result = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(result, model.trainable_variables))
