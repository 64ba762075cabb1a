import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Flatten(), tf.keras.layers.Dense(2, activation="tanh")])
image = tf.Variable(tf.random.uniform((1, 2, 2), seed=4))
with tf.GradientTape() as tape:
    score = model(image)[0, 1]
result = tape.gradient(score, image)
