import tensorflow as tf

features = tf.keras.Input(shape=(3,))
target = tf.keras.Input(shape=(1,))
prediction = tf.keras.layers.Dense(1)(features)
model = tf.keras.Model(features, prediction)
mse = tf.reduce_mean(tf.math.squared_difference(prediction, target))  # <- GT019
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    model(x)
result = tape.gradient(mse, model.trainable_variables)
