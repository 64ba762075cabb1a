import tensorflow as tf

embed = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(2)])
rebuild = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(5)])
batch = tf.random.normal((8, 5))
with tf.GradientTape() as tape:
    code = embed(batch)
    recon = tf.reduce_mean(tf.square(rebuild(code) - batch))
    sparsity = tf.reduce_mean(tf.abs(code))
    total = recon + 0.1 * sparsity
result = tape.gradient(total, embed.trainable_variables + rebuild.trainable_variables)
