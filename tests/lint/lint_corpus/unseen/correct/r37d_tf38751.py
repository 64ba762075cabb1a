import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((4, 4, 3)), tf.keras.layers.Conv2D(2, 3),
                               tf.keras.layers.Flatten()])
image = tf.Variable(tf.ones([1, 4, 4, 3]))
with tf.GradientTape() as tape:
    features = encoder(image)
    loss = tf.reduce_sum(tf.square(features))
result = tape.gradient(loss, image)
