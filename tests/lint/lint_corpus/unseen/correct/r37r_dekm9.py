import numpy as np
import tensorflow as tf
from tensorflow.keras import layers
from tensorflow.keras import losses
from tensorflow.keras.models import Model

hidden_units = 3
input = layers.Input(shape=(8,))
x = layers.Dense(16, activation='relu')(input)
output = layers.Dense(units=hidden_units, name='embed')(x)
model = Model(inputs=input, outputs=output)
optimizer = tf.keras.optimizers.Adam()
x_batch = np.random.rand(6, 8).astype("float32")
V = np.linalg.qr(np.random.rand(hidden_units, hidden_units))[0].astype("float32")
y_true = np.random.rand(6, hidden_units).astype("float32")
with tf.GradientTape() as tape:
    y_pred = model(x_batch)
    y_pred_cluster = tf.matmul(y_pred[:, :hidden_units], V)
    loss_value = losses.mse(y_true, y_pred_cluster)
grads = tape.gradient(loss_value, model.trainable_variables)
optimizer.apply_gradients(zip(grads, model.trainable_variables))
result = grads
