import tensorflow as tf

g = tf.Variable([1.0, 2.0])
d = tf.Variable([0.5, 0.5])
g_opt = tf.keras.optimizers.Adam(0.01)
d_opt = tf.keras.optimizers.Adam(0.01)
x = tf.constant([1.0, 1.0])


def update(optimizer, grads, variables):
    optimizer.apply_gradients(zip(grads, variables))


@tf.function
def train_step(x):
    with tf.GradientTape(persistent=True) as tape:
        g_loss = tf.reduce_sum(g * d * x)
        d_loss = tf.reduce_sum((d - g) ** 2)
    g_grads = tape.gradient(g_loss, [g])
    d_grads = tape.gradient(d_loss, [d])
    update(g_opt, g_grads, [g])
    update(d_opt, d_grads, [d])
    return g_grads + d_grads


for epoch in range(2):
    result = train_step(x)
