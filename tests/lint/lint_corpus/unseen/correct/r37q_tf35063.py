import numpy as np
import tensorflow as tf

inputs = tf.keras.Input(shape=[16, 6, 1], batch_size=4)
label_length = tf.constant(np.ones((4)), dtype=tf.int32)
logit_length = tf.constant(np.full((4), 16), dtype=tf.int32)
x = tf.keras.layers.Conv2D(1, kernel_size=(5, 5), padding="same")(inputs)
logits = tf.keras.layers.Reshape((16, 6))(x)
model = tf.keras.Model(inputs, logits)
labels = tf.constant(np.random.randint(0, 5, (4, 16)), dtype=tf.int32)
with tf.GradientTape() as tape:
    out = model(tf.random.normal((4, 16, 6, 1)))
    loss = tf.nn.ctc_loss(labels=labels, logits=out, label_length=label_length, logit_length=logit_length,
                          logits_time_major=False, blank_index=-1)
result = tape.gradient(loss, model.trainable_variables)
