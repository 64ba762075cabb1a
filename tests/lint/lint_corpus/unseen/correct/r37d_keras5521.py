import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(6, activation="sigmoid")])
x = tf.random.normal((3, 4))
keys = tf.constant([[1.0, 0.0, 1.0, 1.0, 0.0, 1.0]] * 3)
with tf.GradientTape() as tape:
    probabilities = model(x)
    loss = tf.reduce_mean(tf.keras.losses.binary_crossentropy(keys, probabilities))
sampled = tf.floor(probabilities + tf.random.uniform(tf.shape(probabilities), 0, 1))
result = tape.gradient(loss, model.trainable_variables)
