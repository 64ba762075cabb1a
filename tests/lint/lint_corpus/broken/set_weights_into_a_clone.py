import tensorflow as tf

meta = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="tanh"), tf.keras.layers.Dense(1)])
learner = tf.keras.models.clone_model(meta)
x = tf.random.uniform((6, 2))
y = tf.reduce_sum(x, axis=1, keepdims=True)
inner = tf.keras.optimizers.SGD(0.05)
with tf.GradientTape() as outer_tape:
    learner.set_weights(meta.get_weights())  # <- GT023
    with tf.GradientTape() as inner_tape:
        fit = tf.reduce_mean((learner(x) - y) ** 2)
    inner.apply_gradients(zip(inner_tape.gradient(fit, learner.trainable_variables), learner.trainable_variables))
    test = tf.reduce_mean((learner(x) - y) ** 2)
result = outer_tape.gradient(test, meta.trainable_variables)
