import tensorflow as tf

z = tf.random.uniform((3,))
with tf.GradientTape() as tape:  # <- GT003
    energy = tf.reduce_sum(tf.sin(z))
result = tape.gradient(energy, z)
