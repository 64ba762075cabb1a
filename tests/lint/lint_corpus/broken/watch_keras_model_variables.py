import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((3, 2))
with tf.GradientTape(watch_accessed_variables=False) as tape:
    tape.watch(model.trainable_variables)  # <- GT019
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
