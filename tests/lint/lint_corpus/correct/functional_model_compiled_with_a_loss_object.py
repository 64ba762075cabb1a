import numpy as np
import tensorflow as tf

features = tf.keras.Input((6,))
hidden = tf.keras.layers.Dense(5, activation="tanh")(features)
scores = tf.keras.layers.Dense(2, activation="softmax")(hidden)
classifier = tf.keras.Model(features, scores)
classifier.compile(tf.keras.optimizers.RMSprop(0.01), tf.keras.losses.CategoricalCrossentropy(), metrics=["accuracy"])
data = np.random.rand(12, 6).astype("float32")
labels = np.eye(2, dtype="float32")[np.arange(12) % 2]
history = classifier.fit(data, labels, epochs=1, batch_size=4, verbose=0)
with tf.GradientTape() as tape:
    cost = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(labels, classifier(data)))
result = tape.gradient(cost, classifier.trainable_variables)
