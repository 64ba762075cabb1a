import tensorflow as tf

w = tf.Variable([0.5, -1.0])
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
y = tf.constant([1.0, 0.0, 1.0])


def hit_loss(target, score, strict):
    if strict:
        squash = tf.math.sigmoid
    else:
        squash = tf.math.tanh
    hits = squash(score)
    return tf.reduce_mean(tf.abs(target - hits))


with tf.GradientTape() as tape:
    loss = hit_loss(y, tf.linalg.matvec(x, w), strict=False)
result = tape.gradient(loss, [w])
