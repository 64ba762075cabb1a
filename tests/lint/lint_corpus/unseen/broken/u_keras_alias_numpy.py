from tensorflow import keras
import tensorflow as tf

layer = keras.layers.Dense(2)
inp = tf.ones((1, 3))
with tf.GradientTape() as tape:
    out = layer(inp)
    out_np = out.numpy() * 2  # <- GT002
    loss = tf.reduce_sum(out_np)
result = tape.gradient(loss, layer.trainable_variables)
