import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
data = tf.constant([[1.0, 2.0], [3.0, 4.0]])
with tf.GradientTape() as tape:
    predictions = model.predict(data, verbose=0)  # <- GT002
    loss = tf.reduce_mean(tf.square(predictions - 1.0))
result = tape.gradient(loss, model.trainable_variables)
