import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(4),
                             tf.keras.layers.BatchNormalization(), tf.keras.layers.Dense(1)])
optimizer = tf.keras.optimizers.SGD(0.1)
x = tf.random.normal((8, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x, training=True) ** 2)
result = tape.gradient(loss, model.trainable_variables)
optimizer.apply_gradients(zip(result, model.trainable_variables))
