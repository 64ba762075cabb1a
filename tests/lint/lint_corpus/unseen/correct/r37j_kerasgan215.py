import tensorflow as tf

critic = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8, activation="tanh"),
                              tf.keras.layers.Dense(1, use_bias=False)])
real = tf.random.normal((3, 4))
fake = tf.random.normal((3, 4))
alpha = tf.random.uniform((3, 1))
averaged_samples = alpha * real + (1 - alpha) * fake
with tf.GradientTape() as tape:
    with tf.GradientTape() as gp_tape:
        gp_tape.watch(averaged_samples)
        validity_interpolated = critic(averaged_samples)
    gradients = gp_tape.gradient(validity_interpolated, averaged_samples)
    gradients_sqr_sum = tf.reduce_sum(tf.square(gradients), axis=1)
    gp = tf.reduce_mean(tf.square(1 - tf.sqrt(gradients_sqr_sum)))
result = tape.gradient(gp, critic.trainable_variables)
