import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(net(x)))
result = tape.gradient(loss, net.trainable_variables)
