import tensorflow as tf

w = tf.Variable([1.0, 2.0])
x = tf.constant([1.0, 1.0])
optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def train_step(x, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(w * x)
    grads = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(grads, [w]))
    return grads


for epoch in range(2):
    result = train_step(x, optimizer)
