import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.ones((4, 3))
y = tf.ones((4, 1))


def train_step(x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(x) - y) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    return grads


for optimizer in [tf.keras.optimizers.Adam(0.01), tf.keras.optimizers.RMSprop(0.01)]:
    result = tf.function(train_step)(x, y, optimizer)
