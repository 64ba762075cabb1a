import numpy as np
import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
states = np.random.rand(6, 4).astype("float32")
rewards = np.ones(6, dtype="float32")
with tf.GradientTape() as tape:
    actor_logits = model(states)
    action_probs = tf.nn.softmax(actor_logits)
    loss = -tf.reduce_mean(rewards * tf.reduce_max(action_probs, axis=-1))
result = tape.gradient(loss, model.trainable_variables)
