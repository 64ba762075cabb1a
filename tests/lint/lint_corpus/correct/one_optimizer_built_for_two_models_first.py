import numpy as np
import tensorflow as tf

policy = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
value = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
opt = tf.keras.optimizers.RMSprop(0.01)
opt.build(policy.trainable_variables + value.trainable_variables)
states = np.random.rand(4, 3).astype("float32")
for net in (policy, value):
    with tf.GradientTape() as tape:
        objective = tf.reduce_sum(tf.square(net(states)))
    result = tape.gradient(objective, net.trainable_variables)
    opt.apply_gradients(zip(result, net.trainable_variables))
