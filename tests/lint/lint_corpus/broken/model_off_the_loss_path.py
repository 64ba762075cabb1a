import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(3, activation="relu")])
head = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(1)])
batch = tf.random.normal((8, 5))
targets = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    features = encoder(batch)
    loss = tf.reduce_mean(tf.square(head(batch) - targets))
grad = tape.gradient(loss, encoder.trainable_variables)  # <- GT017
result = grad
