import tensorflow as tf

scores = tf.constant([1.0, 2.0, 4.0])
w = tf.Variable(0.5)


@tf.function
def loss_gradient():
    loss = tf.constant(0.0)
    with tf.GradientTape() as tape:
        for s in scores:
            loss += (s * w - 1.0) ** 2
    return tape.gradient(loss, w)


result = loss_gradient()
