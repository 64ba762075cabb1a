import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, activation="tanh")])
x = tf.random.uniform((5, 3))
with tf.GradientTape() as tape:
    tape.watch([w.value for w in net.trainable_weights])
    loss = tf.reduce_mean(net(x) ** 2)
result = tape.gradient(loss, net.trainable_weights)
