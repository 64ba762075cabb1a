import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
head = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 4))
with tf.GradientTape() as tape:
    codes = tf.stop_gradient(encoder(x))  # <- GT010
    loss = tf.reduce_mean(head(codes) ** 2)
result = tape.gradient(loss, head.trainable_variables + encoder.trainable_variables)
