import numpy as np
import tensorflow as tf

base = tf.keras.Sequential([tf.keras.Input((6, 6, 3)), tf.keras.layers.Conv2D(4, 3, name="conv")])
model = tf.keras.Model(inputs=base.inputs, outputs=base.layers[0].output)
pic = tf.convert_to_tensor(np.random.uniform(size=(1, 6, 6, 3)).astype("float32"))
with tf.GradientTape() as tape:
    tape.watch(pic)
    predictions = model(pic)[0][:, :, 2]
    loss = tf.reduce_mean(predictions)
result = tape.gradient(loss, pic)[0]
