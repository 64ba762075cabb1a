import numpy as np
import tensorflow as tf

gamma = 0.9
training_model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(4)])
state = tf.random.normal((8, 4))
mus_ = np.random.rand(3, 8, 4).astype("float32")
max_index = 1
with tf.GradientTape() as tape:
    pred = training_model(state)
    label = state + gamma * mus_[max_index]
    loss = tf.reduce_mean(tf.square(label - pred))
grads = tape.gradient(loss, training_model.trainable_variables)
tf.keras.optimizers.RMSprop().apply_gradients(zip(grads, training_model.trainable_variables))
result = grads
