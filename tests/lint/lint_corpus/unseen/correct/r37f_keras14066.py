import tensorflow as tf

i1 = tf.keras.Input((10,), name="i1")
a = tf.keras.layers.Dense(1, name="fc1")(i1)
model = tf.keras.Model(inputs=[i1], outputs=[a])
model.compile(optimizer="adam", loss="mse")
x = tf.random.uniform((32, 10))
y = tf.random.uniform((32, 1))
with tf.GradientTape() as tape:
    prediction = model(x)
    loss = tf.reduce_mean((prediction - y) ** 2)
result = tape.gradient(loss, model.trainable_weights)
