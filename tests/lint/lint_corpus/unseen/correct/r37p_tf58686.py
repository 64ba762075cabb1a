import tensorflow as tf

action_size = 2
actor = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(action_size, activation="tanh")])
optimizer = tf.keras.optimizers.Adam(1e-3)
one = tf.ones(action_size, dtype=float)
std = tf.Variable(one, dtype=float, name="std")
states = tf.random.normal((8, 4))
actions = tf.random.normal((8, action_size))
with tf.GradientTape() as tape_actions:
    mu = actor(states)
    log_prob = -0.5 * tf.square((actions - mu) / std) - tf.math.log(std)
    loss_actions = -tf.reduce_mean(log_prob)
grads2 = tape_actions.gradient(loss_actions, std)
optimizer.apply_gradients(zip([grads2], [std]))
result = grads2
