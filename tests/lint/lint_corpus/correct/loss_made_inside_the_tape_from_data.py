import tensorflow as tf

features = tf.keras.Input(shape=(3,))
target = tf.keras.Input(shape=(1,))
prediction = tf.keras.layers.Dense(1)(features)
model = tf.keras.Model(features, prediction)
x = tf.random.normal((4, 3))
y = tf.random.normal((4, 1))
with tf.GradientTape() as tape:
    mse = tf.reduce_mean(tf.math.squared_difference(model(x), y))
result = tape.gradient(mse, model.trainable_variables)
