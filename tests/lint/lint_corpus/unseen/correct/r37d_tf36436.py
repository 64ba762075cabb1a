import tensorflow as tf

critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="relu"),
                              tf.keras.layers.Dense(1)])
real = tf.random.normal((6, 4))
fake = tf.random.normal((6, 4))
alpha = tf.random.uniform((6, 1))
with tf.GradientTape() as gp_tape:
    interpolated = alpha * real + (1.0 - alpha) * fake
    gp_tape.watch(interpolated)
    score = critic(interpolated)
grads = gp_tape.gradient(score, interpolated)
result = grads
