import tensorflow as tf
import tensorflow_probability as tfp

concentration = tf.constant(3.0)
rate = tf.constant(2.0)
with tf.GradientTape() as tape:
    tape.watch([concentration, rate])
    dist = tfp.distributions.Gamma(concentration, rate)
    samples = dist.sample(5)
    loss = tf.reduce_mean(tf.square(samples))
result = tape.gradient(loss, [concentration, rate])
