from tensorflow import keras
import tensorflow as tf

model = keras.Sequential([keras.layers.Dense(3, activation="tanh"), keras.layers.Dense(1)])
opt = keras.optimizers.Adam(1e-3)
xb = tf.random.normal((4, 2), seed=1)
yb = tf.ones((4, 1))
with tf.GradientTape() as tape:
    loss = keras.losses.MeanSquaredError()(yb, model(xb))
grads = tape.gradient(loss, model.trainable_weights)
opt.apply_gradients(zip(grads, model.trainable_weights))
result = grads
