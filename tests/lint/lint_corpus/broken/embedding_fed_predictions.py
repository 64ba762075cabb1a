import tensorflow as tf

features = tf.keras.Input((6,))
scores = tf.keras.layers.Dense(10, activation="softmax")(features)
vectors = tf.keras.layers.Embedding(10, 3)(scores)  # <- GT010
head = tf.keras.layers.Dense(1)(tf.keras.layers.Flatten()(vectors))
model = tf.keras.Model(features, head)
x = tf.random.normal((4, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
