import keras
import tensorflow as tf

model = keras.Sequential([keras.Input((4,)), keras.layers.Dense(2)])
x = tf.random.normal((3, 4))
with tf.GradientTape() as tape:
    out = model(x)
    loss = tf.reduce_mean(out ** 2)
logged = keras.ops.convert_to_numpy(out)
result = tape.gradient(loss, model.trainable_variables)
