import tensorflow as tf

v = tf.Variable(4.0)
with tf.GradientTape(watch_accessed_variables=False) as tape:  # <- GT003
    y = v * v
result = tape.gradient(y, v)
