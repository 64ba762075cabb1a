import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(8, activation="tanh"),
                           tf.keras.layers.Dense(1, use_bias=False, name="psi")])
xy = tf.random.normal((16, 2))
with tf.GradientTape() as tape:
    with tf.GradientTape() as inner:
        inner.watch(xy)
        psi = net(xy)
    dpsi = inner.gradient(psi, xy)
    u, v = dpsi[:, 1], -dpsi[:, 0]
    loss = tf.reduce_mean(u ** 2 + v ** 2)
result = tape.gradient(loss, net.trainable_variables)
