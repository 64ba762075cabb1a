import tensorflow as tf

inputs = tf.keras.Input((3,))
hidden = tf.keras.layers.Dense(4, activation="sigmoid")(inputs)
ids = tf.keras.layers.Lambda(lambda h: tf.cast(h * 9.0, tf.int32))(hidden)  # <- GT010
vectors = tf.keras.layers.Embedding(10, 2)(ids)
outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Flatten()(vectors))
model = tf.keras.Model(inputs, outputs)
x = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
