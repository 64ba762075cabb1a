import tensorflow as tf

w = tf.Variable([1.0, 2.0])
x = tf.constant([1.0, 1.0])


@tf.function
def train_step(x):
    optimizer = tf.keras.optimizers.Adam(0.01)  # <- GT020
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x)
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return grads


result = train_step(x)
