import tensorflow as tf


def warp(images, params):
    return images * params[:, :1] + params[:, 1:]


aligner = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(2)])
classifier = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(3)])
images = tf.random.normal((4, 6))
with tf.GradientTape() as tape:
    warped = warp(images, aligner(images))
    scores = classifier(warped)
    loss = tf.reduce_mean(scores ** 2)
result = tape.gradient(loss, aligner.trainable_variables + classifier.trainable_variables)
