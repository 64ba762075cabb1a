import tensorflow as tf
from tensorflow import keras

model = keras.Sequential([keras.Input((5, 5, 1)), keras.layers.Conv2D(2, 3, name="conv2d_171")])
img = tf.random.normal((1, 5, 5, 1))
with tf.GradientTape() as tape:
    tape.watch(img)
    layer_output = model(img)
    loss = keras.backend.mean(layer_output[:, :, :, 1])
gradients = tape.gradient(loss, img)
result = gradients
