import tensorflow as tf

theta = tf.Variable([0.1, 0.2, 0.3])
with tf.GradientTape(persistent=True) as gt:
    outputs = tf.square(theta) + tf.reduce_sum(theta)
    parts = tf.unstack(outputs)
result = []
for idx, out_i in enumerate(parts):
    result.append(gt.gradient(out_i, theta))
