import numpy as np
import tensorflow as tf

batch = np.random.rand(8, 2).astype("float32")
target = np.random.rand(8, 1).astype("float32")
for width in (3, 5):
    net = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(width, activation="relu"),
                               tf.keras.layers.Dense(1)])
    opt = tf.keras.optimizers.Adam(0.01)
    for step in range(2):
        with tf.GradientTape() as tape:
            error = tf.reduce_mean(tf.square(net(batch) - target))
        result = tape.gradient(error, net.trainable_variables)
        opt.apply_gradients(zip(result, net.trainable_variables))
