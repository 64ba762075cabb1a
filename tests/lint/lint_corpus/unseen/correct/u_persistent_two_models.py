import tensorflow as tf

enc = tf.keras.Sequential([tf.keras.layers.Dense(2, activation="tanh")])
dec = tf.keras.Sequential([tf.keras.layers.Dense(3)])
x = tf.random.normal((2, 3), seed=7)
with tf.GradientTape(persistent=True) as tape:
    z = enc(x)
    recon = dec(z)
    loss = tf.reduce_mean((recon - x) ** 2)
g_enc = tape.gradient(loss, enc.trainable_variables)
g_dec = tape.gradient(loss, dec.trainable_variables)
del tape
result = [g_enc, g_dec]
