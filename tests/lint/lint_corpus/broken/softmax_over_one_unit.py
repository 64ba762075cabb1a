import tensorflow as tf

value_net = tf.keras.Sequential([
    tf.keras.Input((4,)),
    tf.keras.layers.Dense(8, activation="relu"),
    tf.keras.layers.Dense(1, activation=tf.nn.softmax),  # <- GT010
])
obs = tf.random.normal((6, 4))
returns = tf.random.normal((6, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(returns - value_net(obs)))
grad = tape.gradient(loss, value_net.trainable_variables)
result = grad
