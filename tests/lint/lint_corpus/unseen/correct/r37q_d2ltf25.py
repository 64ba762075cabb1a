import tensorflow as tf

num_inputs, batch_size, lr = 2, 10, 0.03
true_w, true_b = tf.constant([[2.0], [-3.4]]), 4.2
features = tf.random.normal((batch_size, num_inputs))
labels = tf.matmul(features, true_w) + true_b
w = tf.Variable(tf.random.normal((num_inputs, 1), stddev=0.01))
b = tf.Variable(tf.zeros((1,)))


def linreg(X, w, b):
    return tf.matmul(X, w) + b


def squared_loss(y_hat, y):
    return (y_hat - tf.reshape(y, y_hat.shape)) ** 2 / 2


with tf.GradientTape(persistent=True) as t:
    t.watch([w, b])
    l = tf.reduce_sum(squared_loss(linreg(features, w, b), labels))
for param in [w, b]:
    param.assign_sub(lr * t.gradient(l, param) / batch_size)
result = [t.gradient(l, w), t.gradient(l, b)]
