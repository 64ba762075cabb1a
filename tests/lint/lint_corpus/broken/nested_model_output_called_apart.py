import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(3, activation="tanh")])
classifier = tf.keras.Sequential([tf.keras.Input((5,)), encoder, tf.keras.layers.Dense(2)])
x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    code = encoder(x)
    tape.watch(code)
    loss = tf.reduce_mean(classifier(x) ** 2)
result = tape.gradient(loss, code)  # <- GT017
