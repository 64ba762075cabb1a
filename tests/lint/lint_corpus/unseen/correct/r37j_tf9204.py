import tensorflow as tf

N = 2
A = tf.Variable(tf.random.uniform((N, N)))
B = tf.Variable(tf.random.uniform((N, N)))
p = tf.Variable(tf.random.normal([2 * N]))
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        x, y = p[:N], p[N:]
        x_1 = tf.reshape(x, [N, 1])
        y_1 = tf.reshape(y, [N, 1])
        z = (0.5 * tf.matmul(tf.matmul(tf.transpose(x_1), A), x_1)
             + 0.5 * tf.matmul(tf.matmul(tf.transpose(y_1), B), y_1))
    g = inner.gradient(z, p)
result = outer.jacobian(g, p)
