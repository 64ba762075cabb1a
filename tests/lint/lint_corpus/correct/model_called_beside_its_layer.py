import tensorflow as tf

features = tf.keras.layers.Dense(4, activation="relu")
head = tf.keras.layers.Dense(1)
inputs = tf.keras.Input((3,))
net = tf.keras.Model(inputs, head(features(inputs)))
x = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    penalty = tf.reduce_mean(features(x) ** 2) + tf.reduce_mean(net(x) ** 2)
result = tape.gradient(penalty, net.trainable_variables)
