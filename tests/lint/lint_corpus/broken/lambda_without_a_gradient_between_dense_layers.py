import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4),
                             tf.keras.layers.Lambda(tf.round),  # <- GT010
                             tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
