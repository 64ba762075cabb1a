import tensorflow as tf

cnn = tf.keras.Sequential([tf.keras.Input((4, 4, 1)), tf.keras.layers.Conv2D(2, 3), tf.keras.layers.Flatten()])
head = tf.keras.layers.Dense(1)
images = tf.random.normal((2, 4, 4, 1))
with tf.GradientTape() as tape:
    features = cnn(images)
    loss = tf.reduce_sum(head(features))
result = tape.gradient(loss, cnn.trainable_variables)
