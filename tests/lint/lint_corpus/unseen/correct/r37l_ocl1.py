import numpy as np
import tensorflow as tf
from tensorflow.keras import backend as K

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3, activation="softmax")])
imgset = np.random.rand(5, 4).astype("float32")
f_accum = [np.zeros(w.shape) for w in model.weights]
for m in range(len(model.weights)):
    with tf.GradientTape() as tape:
        output = K.log(model(imgset[:1]))
    gradients = tape.gradient(output, model.weights[m])
    f_accum[m] += np.square(gradients)
result = f_accum
