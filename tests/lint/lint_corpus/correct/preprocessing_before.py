import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
raw = tf.constant([[10.0, 20.0], [30.0, 40.0]])
normalised = (raw - tf.reduce_mean(raw)) / tf.math.reduce_std(raw)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(normalised) ** 2) + 1.0
result = tape.gradient(loss, model.trainable_variables)[0]
