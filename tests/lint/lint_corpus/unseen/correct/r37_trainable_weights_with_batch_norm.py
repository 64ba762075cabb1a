import tensorflow as tf

G = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(8), tf.keras.layers.BatchNormalization(),
                         tf.keras.layers.Dense(4)])
g_optimizer = tf.keras.optimizers.Adam(0.001)
lr_image = tf.random.normal((8, 4))
hr_image = tf.random.normal((8, 4))
with tf.GradientTape() as tape:
    mse_loss = tf.reduce_mean((G(lr_image, training=True) - hr_image) ** 2)
result = tape.gradient(mse_loss, G.trainable_weights)
g_optimizer.apply_gradients(zip(result, G.trainable_weights))
