import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
x = tf.ones((2, 3))
with tf.GradientTape() as tape:  # <- GT006
    out = model(x)
    loss_a = tf.reduce_sum(out)
    loss_b = tf.reduce_mean(out ** 2)
ga = tape.gradient(loss_a, model.trainable_variables)
gb = tape.gradient(loss_b, model.trainable_variables)
result = [ga, gb]
