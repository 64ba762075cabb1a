import tensorflow as tf

model = tf.keras.Sequential([
    tf.keras.Input((6, 6, 1)),
    tf.keras.layers.Conv2D(4, 3, activation="relu", kernel_initializer=tf.keras.initializers.Zeros()),  # <- GT028
    tf.keras.layers.Flatten(),
    tf.keras.layers.Dense(1),
])
images = tf.random.normal((2, 6, 6, 1))
labels = tf.constant([[1.0], [0.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(images) - labels))
result = tape.gradient(loss, model.trainable_variables)
