import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
x = tf.ones((3, 2))
x_adv = tf.Variable(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x_adv))
result = tape.gradient(loss, x_adv)
