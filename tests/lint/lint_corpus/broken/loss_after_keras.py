import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
x = tf.ones((3, 2))
target = tf.zeros((3, 1))
with tf.GradientTape() as tape:
    pred = model(x)
loss = tf.reduce_mean(tf.square(pred - target))  # <- GT011
result = tape.gradient(loss, model.trainable_variables)
