import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(4, activation="tanh"), tf.keras.layers.Dense(1)])
x = tf.random.uniform((8, 1))
y = tf.sin(x)
with tf.GradientTape() as test_tape:
    with tf.GradientTape() as train_tape:
        train_loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = train_tape.gradient(train_loss, model.trainable_variables)
    k1, b1, k2, b2 = [w - 0.01 * g for w, g in zip(model.trainable_variables, grads)]
    test_loss = tf.reduce_mean((tf.tanh(x @ k1 + b1) @ k2 + b2 - y) ** 2)
result = test_tape.gradient(test_loss, model.trainable_variables)
