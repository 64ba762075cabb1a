import tensorflow as tf

lr = 1e-3
w1 = tf.Variable(tf.random.truncated_normal([784, 32], stddev=0.1))
b1 = tf.Variable(tf.zeros([32]))
w2 = tf.Variable(tf.random.truncated_normal([32, 16], stddev=0.1))
b2 = tf.Variable(tf.zeros([16]))
w3 = tf.Variable(tf.random.truncated_normal([16, 10], stddev=0.1))
b3 = tf.Variable(tf.zeros([10]))
x = tf.random.uniform((8, 784))
y = tf.one_hot(tf.range(8) % 10, depth=10)
with tf.GradientTape() as tape:
    h1 = tf.nn.relu(x @ w1 + b1)
    h2 = tf.nn.relu(h1 @ w2 + b2)
    out = h2 @ w3 + b3
    loss = tf.reduce_mean(tf.square(y - out))
grads = tape.gradient(loss, [w1, b1, w2, b2, w3, b3])
for p, g in zip([w1, b1, w2, b2, w3, b3], grads):
    p.assign_sub(lr * g)
result = grads
