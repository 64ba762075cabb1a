import tensorflow as tf

embedding = tf.keras.layers.Embedding(10, 4)
head = tf.keras.Sequential([tf.keras.Input((5, 4)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
inputs = tf.constant([[1, 2, 3, 4, 5]])
embedded = embedding(inputs)
with tf.GradientTape() as tape:
    tape.watch(embedded)
    output = head(embedded)
result = tape.gradient(output, embedded)
