import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
scale = tf.Variable(2.0)
x = tf.ones((2, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(model(x) * scale) ** 2
result = tape.gradient(loss, model.trainable_variables + [scale])
