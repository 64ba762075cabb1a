import tensorflow as tf

angle = tf.constant(0.7)
wave = tf.sin(angle)
with tf.GradientTape() as tape:  # <- GT003
    energy = wave * wave
result = tape.gradient(energy, angle)
