import tensorflow as tf

mu = tf.Variable(0.5)
sigma = 1.0
with tf.GradientTape() as tape:
    z = tf.stop_gradient(mu + sigma * tf.random.normal([]))
    log_q = -0.5 * ((z - mu) / sigma) ** 2 - tf.math.log(sigma * tf.sqrt(2.0 * 3.141592653589793))
result = tape.gradient(log_q, mu)
