import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1, activation="sigmoid")])
x = tf.random.normal((4, 3))
y = tf.constant([[1.0], [0.0], [1.0], [0.0]])
accuracy = tf.keras.metrics.BinaryAccuracy()
with tf.GradientTape() as tape:
    loss = 1.0 - accuracy(y, model(x))  # <- GT010
result = tape.gradient(loss, model.trainable_variables)
