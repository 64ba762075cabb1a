import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="relu"), tf.keras.layers.Dense(1)])
x = tf.random.uniform((8, 4))
with tf.GradientTape() as tape:
    prediction = net(x)
    penalty = net.losses
result = tape.gradient(penalty, net.trainable_variables)  # <- GT017
