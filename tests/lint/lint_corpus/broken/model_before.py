import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2)])
batch = tf.ones((4, 3))
predictions = model(batch)  # <- GT007
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(predictions))
result = tape.gradient(loss, model.trainable_variables)
