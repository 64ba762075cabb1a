import tensorflow as tf

features = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), tf.keras.layers.Conv2D(4, 3)])
base_image = tf.random.uniform((1, 8, 8, 3))
combination_image = tf.Variable(tf.random.uniform((1, 8, 8, 3)))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(features(combination_image) - features(base_image)))
grads = tape.gradient(loss, combination_image)
result = grads
