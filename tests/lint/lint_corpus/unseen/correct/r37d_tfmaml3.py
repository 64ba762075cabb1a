import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((1,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((5, 1))
y = 3.0 * x
with tf.GradientTape() as outer:
    with tf.GradientTape() as inner:
        inner_loss = tf.reduce_mean((model(x) - y) ** 2)
    kernel_grad, bias_grad = inner.gradient(inner_loss, model.trainable_variables)
    fast_kernel = model.layers[0].kernel - 0.01 * kernel_grad
    fast_bias = model.layers[0].bias - 0.01 * bias_grad
    outer_loss = tf.reduce_mean((tf.matmul(x, fast_kernel) + fast_bias - y) ** 2)
result = outer.gradient(outer_loss, model.trainable_variables)
