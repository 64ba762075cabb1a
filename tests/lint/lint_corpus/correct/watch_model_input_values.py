import tensorflow as tf

inputs = tf.keras.Input(shape=(3,))
model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
images = tf.convert_to_tensor(tf.ones((2, 3)))
with tf.GradientTape() as tape:
    tape.watch(images)
    loss = tf.reduce_sum(model(images))
result = tape.gradient(loss, images)
