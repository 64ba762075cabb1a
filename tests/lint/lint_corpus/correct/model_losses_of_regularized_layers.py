import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="relu", kernel_regularizer="l2"),
                           tf.keras.layers.Dense(1, kernel_regularizer="l2")])
x = tf.random.uniform((8, 4))
with tf.GradientTape() as tape:
    prediction = net(x)
    penalty = tf.add_n(net.losses)
result = tape.gradient(penalty, net.trainable_variables[0::2])
