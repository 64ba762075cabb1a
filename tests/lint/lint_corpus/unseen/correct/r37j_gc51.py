import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
centers = tf.constant([-1.0, 0.0, 1.0])
x = tf.random.normal((2, 4))
with tf.GradientTape() as tape:
    w = encoder(x)
    dist = tf.square(w[..., None] - centers)
    w_soft = tf.reduce_sum(tf.nn.softmax(-dist, axis=-1) * centers, axis=-1)
    w_hard = tf.gather(centers, tf.argmin(dist, axis=-1))
    w_bar = tf.stop_gradient(w_hard - w_soft) + w_soft
    loss = tf.reduce_mean(tf.square(w_bar - 0.3))
result = tape.gradient(loss, encoder.trainable_variables)
