import tensorflow as tf

inputs = tf.keras.Input((6,))
features = tf.keras.layers.Dense(4, activation="relu")(inputs)
frozen = tf.keras.layers.Lambda(tf.stop_gradient)(features)
head = tf.keras.layers.Dense(2)
outputs = head(frozen)
model = tf.keras.Model(inputs, outputs)
x = tf.random.normal((3, 6))
y = tf.random.normal((3, 2))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean((model(x) - y) ** 2)
result = tape.gradient(loss, head.trainable_variables)
