import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="tanh"), tf.keras.layers.Dense(2)])
x = tf.random.normal((4, 2))
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    with tf.GradientTape(persistent=True) as inner:
        inner.watch(x)
        y = model(x)
    grads = inner.batch_jacobian(y, x)
hessian = tape.batch_jacobian(grads, x)
result = hessian
