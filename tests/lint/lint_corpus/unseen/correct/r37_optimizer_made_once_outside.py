import tensorflow as tf

y_N = tf.Variable([1.0, 2.0, 3.0])
optimizer = tf.keras.optimizers.Adam(0.5)


@tf.function
def run():
    with tf.GradientTape() as tape:
        loss = -tf.reduce_mean(tf.math.log(y_N))
    grads = tape.gradient(loss, [y_N])
    optimizer.apply_gradients(zip(grads, [y_N]))
    return grads


result = run()
