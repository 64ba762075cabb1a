import tensorflow as tf

head = tf.keras.layers.Dense(1)
model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2),
                             tf.keras.layers.Lambda(tf.math.ceil), head])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, head.trainable_variables)
