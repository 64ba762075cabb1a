import tensorflow as tf

actor = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="tanh")])
critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(1)])
s = tf.random.normal((5, 3))
a_memory = tf.random.uniform((5, 1), -1.0, 1.0)
with tf.GradientTape() as tape:
    a = actor(s)
    q = critic(tf.concat([s, a], axis=1))
    actor_loss = -tf.reduce_mean(q)
result = tape.gradient(actor_loss, actor.trainable_variables)
