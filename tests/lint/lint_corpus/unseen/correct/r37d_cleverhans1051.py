import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
x = tf.random.normal((2, 4))
eta = tf.random.uniform((2, 4), -0.1, 0.1)
with tf.GradientTape() as tape:
    adv_x = x + eta
    tape.watch(adv_x)
    logits = model(adv_x)
result = tape.gradient(logits, adv_x)
