import tensorflow as tf

t = tf.constant(0.5)
with tf.GradientTape() as g2:
    g2.watch(t)
    with tf.GradientTape() as g1:
        g1.watch(t)
        f = tf.sin(t) * t
df = g1.gradient(f, t)  # <- GT008
result = g2.gradient(df, t)
