import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2),
                             tf.keras.layers.Lambda(lambda t: t * tf.constant([[0.5]]))])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x))
result = tape.gradient(loss, model.trainable_variables)
