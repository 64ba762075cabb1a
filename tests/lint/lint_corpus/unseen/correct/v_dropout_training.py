import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="tanh"), tf.keras.layers.Dropout(0.1),
                             tf.keras.layers.Dense(1)])
x = tf.random.normal((4, 3), seed=5)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x, training=True) ** 2)
result = tape.gradient(loss, model.trainable_variables)[-1]
