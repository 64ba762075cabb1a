import tensorflow as tf

critic_input = tf.keras.Input(shape=(2,))
critic_output = tf.keras.layers.Dense(1, activation=None)(critic_input)
critic = tf.keras.Model(inputs=critic_input, outputs=critic_output)
states = tf.random.normal((6, 2))
rewards = tf.random.uniform((6, 1))
with tf.GradientTape() as tape:
    values = critic(states)
    critic_loss = tf.reduce_mean(tf.square(rewards - values))
result = tape.gradient(critic_loss, critic.trainable_variables)
