import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="tanh")])
image = tf.random.normal((1, 4), seed=3)
with tf.GradientTape() as tape:
    tape.watch(image)
    prediction = model(image)
    top = tf.reduce_max(prediction[0])
saliency = tape.gradient(top, image)
result = saliency
