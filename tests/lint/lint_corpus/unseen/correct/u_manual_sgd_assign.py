import tensorflow as tf

W = tf.Variable(tf.ones((2, 2)))
b = tf.Variable(tf.ones((2,)))
X = tf.constant([[1.0, 2.0]])
for epoch in range(2):
    with tf.GradientTape() as tape:
        pred = tf.matmul(X, W) + b
        loss = tf.reduce_mean(pred ** 2)
    dW, db = tape.gradient(loss, [W, b])
    W.assign_sub(0.01 * dW)
    b.assign_sub(0.01 * db)
result = [dW, db]
