import tensorflow as tf

lower_layers = tf.keras.Sequential([tf.keras.layers.Dense(4, activation="relu")])
upper_layers = tf.keras.Sequential([tf.keras.layers.Dense(1)])
model = tf.keras.Sequential([lower_layers, upper_layers])
lower_optimizer = tf.keras.optimizers.SGD(0.1)
upper_optimizer = tf.keras.optimizers.Nadam(0.01)
x = tf.ones((2, 3))
with tf.GradientTape(persistent=True) as tape:
    loss = tf.reduce_sum(model(x))
for layers, optimizer in ((lower_layers, lower_optimizer), (upper_layers, upper_optimizer)):
    result = tape.gradient(loss, layers.trainable_variables)
    optimizer.apply_gradients(zip(result, layers.trainable_variables))
