import tensorflow as tf

inputs = tf.keras.Input((4,))
hidden = tf.keras.layers.Dense(3)(inputs)
output = tf.keras.layers.Lambda(lambda x: tf.clip_by_value(x, -1.0, 1.0))(hidden)
head = tf.keras.layers.Dense(1)(output)
model = tf.keras.Model(inputs, head)
x = tf.random.normal((8, 4))
y = tf.random.normal((8, 1))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x)))
result = tape.gradient(loss, model.trainable_variables)
