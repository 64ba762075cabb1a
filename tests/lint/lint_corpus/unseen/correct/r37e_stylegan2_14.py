import tensorflow as tf

G = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(2)])
D = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
z = tf.random.normal((4, 2))
with tf.GradientTape(persistent=True) as tape:
    fake = D(G(z))
    gen_loss = -tf.reduce_mean(fake)
    disc_loss = tf.reduce_mean(fake)
gen_grads = tape.gradient(gen_loss, G.trainable_variables)
disc_grads = tape.gradient(disc_loss, D.trainable_variables)
result = disc_grads
