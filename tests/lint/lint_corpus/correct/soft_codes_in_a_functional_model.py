import tensorflow as tf

inputs = tf.keras.Input((3,))
hidden = tf.keras.layers.Dense(4, activation="sigmoid")(inputs)
weights = tf.keras.layers.Lambda(lambda h: tf.nn.softmax(h * 9.0))(hidden)
vectors = tf.keras.layers.Dense(2, use_bias=False)(weights)
outputs = tf.keras.layers.Dense(1)(tf.keras.layers.Flatten()(vectors))
model = tf.keras.Model(inputs, outputs)
x = tf.random.normal((5, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
