import tensorflow as tf

angle = tf.constant(0.7)
with tf.GradientTape() as tape:
    tape.watch(angle)
    wave = tf.sin(angle)
    energy = wave * wave
result = tape.gradient(energy, angle)
