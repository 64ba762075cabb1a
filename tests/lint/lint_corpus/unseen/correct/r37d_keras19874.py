import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(4, activation="tanh"),
                             tf.keras.layers.Dense(1)])
r = tf.random.uniform((5, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(r) ** 2)
result = tape.gradient(loss, model.trainable_variables)
