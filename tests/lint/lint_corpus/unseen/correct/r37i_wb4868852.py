import numpy as np
import tensorflow as tf

inputs = tf.keras.Input((3,), name="input")
layer_1 = tf.keras.layers.Dense(10, name="layer_1", kernel_initializer=tf.constant_initializer(0.5))(inputs)
outputs = tf.keras.layers.Dense(1, name="alpha", kernel_initializer=tf.constant_initializer(0.1))(layer_1)
model = tf.keras.Model(inputs=inputs, outputs=outputs)
x = tf.constant(np.ones((2, 3)), dtype=tf.float32)
with tf.GradientTape() as tape:
    tape.watch(x)
    out = model(x)
grads = tape.gradient(out, x)
result = grads
