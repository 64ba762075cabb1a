import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
optim = tf.keras.optimizers.Adam(0.001)
x = tf.ones((4, 3))
target = tf.zeros((4, 1))


@tf.function
def train_one_step(x, target):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - target - 1.0) ** 2)
    grad = tape.gradient(loss, model.trainable_variables)
    clipped, _ = tf.clip_by_global_norm(grad, 5.0)
    optim.apply_gradients(zip(clipped, model.trainable_variables))
    return grad


result = train_one_step(x, target)
