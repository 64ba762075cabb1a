import numpy as np
import tensorflow as tf

images = np.random.rand(4, 8).astype("float32")
embedding_matrix = np.random.rand(13, 5).astype("float32")
input_x = tf.keras.Input(shape=(8,), name="feature")
dense1_x = tf.keras.layers.Dense(16, activation="relu")(input_x)
predictions = tf.keras.layers.Dense(13, activation="softmax")(dense1_x)
embedd_layer = tf.keras.layers.Dense(5, use_bias=False, trainable=False,
                                     kernel_initializer=tf.keras.initializers.Constant(embedding_matrix))(predictions)
flatten = tf.keras.layers.Flatten()(embedd_layer)
final_predictions = tf.keras.layers.Dense(13, activation="softmax")(flatten)
model = tf.keras.Model(inputs=input_x, outputs=final_predictions)
labels = tf.one_hot([0, 1, 2, 3], 13)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(labels, model(images)))
result = tape.gradient(loss, model.trainable_variables)
