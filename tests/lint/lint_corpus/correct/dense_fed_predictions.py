import tensorflow as tf

features = tf.keras.Input((6,))
scores = tf.keras.layers.Dense(10, activation="softmax")(features)
vectors = tf.keras.layers.Dense(3, use_bias=False)(scores)
head = tf.keras.layers.Dense(1)(vectors)
model = tf.keras.Model(features, head)
x = tf.random.normal((4, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.trainable_variables)
