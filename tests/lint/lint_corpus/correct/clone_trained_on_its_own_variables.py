import tensorflow as tf

meta = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="tanh"), tf.keras.layers.Dense(1)])
learner = tf.keras.models.clone_model(meta)
x = tf.random.uniform((6, 2))
y = tf.reduce_sum(x, axis=1, keepdims=True)
learner.set_weights(meta.get_weights())
with tf.GradientTape() as tape:
    fit = tf.reduce_mean((learner(x) - y) ** 2)
result = tape.gradient(fit, learner.trainable_variables)
