import tensorflow as tf

theta = tf.Variable([0.1, 0.2, 0.3])
with tf.GradientTape(persistent=True) as gt:
    outputs = tf.square(theta) + tf.reduce_sum(theta)
grads = []
for idx, out_i in enumerate(outputs):  # <- GT001
    grads.append(gt.gradient(out_i, theta))
result = grads
