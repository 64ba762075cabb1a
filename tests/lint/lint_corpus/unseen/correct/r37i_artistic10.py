import tensorflow as tf
from tensorflow.keras import backend

model = tf.keras.Sequential([tf.keras.Input((4, 4, 3)), tf.keras.layers.Conv2D(2, 3)])
content = tf.random.normal((1, 4, 4, 3))
combination_image = tf.Variable(tf.random.normal((1, 4, 4, 3)))
with tf.GradientTape() as tape:
    loss = backend.sum(backend.square(model(combination_image) - model(content)))
grads = tape.gradient(loss, combination_image)
result = grads
