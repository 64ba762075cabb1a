import tensorflow as tf

field = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(16, activation="softplus"),
                             tf.keras.layers.Dense(1)])
points = tf.random.uniform((32, 3))
with tf.GradientTape() as tape:
    with tf.GradientTape() as tape2:
        tape2.watch(points)
        phi = field(points)
    grad_phi = tape2.gradient(phi, points)
    residual = tf.reduce_sum(grad_phi, axis=1) - 1.0
    loss = tf.reduce_mean(tf.square(residual)) + tf.reduce_mean(tf.square(phi[:4]))
result = tape.gradient(loss, field.trainable_variables)
