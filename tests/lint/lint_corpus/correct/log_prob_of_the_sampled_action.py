import tensorflow as tf

policy = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
states = tf.random.normal((5, 4))
returns = tf.random.normal((5,))
with tf.GradientTape() as tape:
    logits = policy(states)
    actions = tf.random.categorical(logits, 1)[:, 0]
    log_probs = tf.gather(tf.nn.log_softmax(logits), actions, batch_dims=1)
    loss = -tf.reduce_mean(log_probs * returns)
result = tape.gradient(loss, policy.trainable_variables)
