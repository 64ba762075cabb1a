import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(8, activation="tanh"),
                             tf.keras.layers.Dense(1)])
x = tf.random.uniform((10, 1), -5.0, 5.0)
with tf.GradientTape(persistent=True) as tape2:
    tape2.watch(x)
    with tf.GradientTape(persistent=True) as tape1:
        tape1.watch(x)
        psi = model(x)
    dpsi_dx = tape1.gradient(psi, x)
d2psi_dx2 = tape2.gradient(dpsi_dx, x)
result = d2psi_dx2
