import tensorflow as tf

w1 = tf.Variable([[1.0]])
w2 = tf.Variable([[3.0]])
w = tf.concat([w1, w2], 0)
x = tf.random.normal((1, 2))
y = tf.reduce_sum(x, 1)
with tf.GradientTape() as tape:
    tape.watch(w)
    r = tf.matmul(w, x)
    loss = tf.reduce_mean(tf.square(y - r))
result = tape.gradient(loss, w)
