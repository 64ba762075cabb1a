import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
v = tf.random.normal((4, 3))
noise = tf.random.uniform(tf.shape(v), 0.001, 0.005)
with tf.GradientTape() as tape:
    tape.watch(v)
    r = v + noise
    kl = tf.reduce_sum(model(r) ** 2)
result = tape.gradient(kl, v)
