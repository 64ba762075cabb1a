import tensorflow as tf

inputs = tf.keras.Input((4,))
common = tf.keras.layers.Dense(8, activation="relu")(inputs)
action = tf.keras.layers.Dense(2, activation="softmax")(common)
critic = tf.keras.layers.Dense(1)(common)
model = tf.keras.Model(inputs, [action, critic])
returns = [1.0, 0.5, 0.25]
with tf.GradientTape() as tape:
    action_probs_history = []
    critic_value_history = []
    for step in range(3):
        state = tf.random.normal((1, 4))
        action_probs, critic_value = model(state)
        action_probs_history.append(tf.math.log(action_probs[0, 0]))
        critic_value_history.append(critic_value[0, 0])
    actor_losses = [-log_prob * (ret - value) for log_prob, value, ret in
                    zip(action_probs_history, critic_value_history, returns)]
    critic_losses = [(ret - value) ** 2 for value, ret in zip(critic_value_history, returns)]
    loss_value = sum(actor_losses) + sum(critic_losses)
result = tape.gradient(loss_value, model.trainable_variables)
