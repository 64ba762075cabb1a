import tensorflow as tf

policy = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
states = tf.random.normal((5, 4))
returns = tf.random.normal((5,))
with tf.GradientTape() as tape:
    actions = tf.random.categorical(policy(states), 1)[:, 0]  # <- GT010
    loss = -tf.reduce_mean(tf.cast(actions, tf.float32) * returns)
result = tape.gradient(loss, policy.trainable_variables)
