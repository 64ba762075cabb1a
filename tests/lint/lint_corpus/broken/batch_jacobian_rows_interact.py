import tensorflow as tf

x = tf.constant([[1.0, 2.0], [3.0, 4.0], [0.5, -1.0]])
with tf.GradientTape(persistent=True) as outer:
    outer.watch(x)
    with tf.GradientTape() as inner:
        inner.watch(x)
        centred = x - tf.reduce_mean(x, axis=0)
        y = tf.reduce_sum(centred ** 3)
    g = inner.gradient(y, x)
hessians = outer.batch_jacobian(g, x)  # <- GT016
full = outer.jacobian(g, x)
blocks = tf.stack([full[i, :, i, :] for i in range(3)])
result = tf.cast(tf.reduce_all(tf.abs(hessians - blocks) < 1e-4), tf.float32)  # 0.0: batch_jacobian is wrong
