import tensorflow as tf

x = tf.Variable([1.0, 2.0])
with tf.GradientTape() as tape:
    y = x * 2.0
    with tape.stop_recording():
        norm = tf.norm(y)
    loss = tf.reduce_sum(y * y)
result = tape.gradient(loss, x)
