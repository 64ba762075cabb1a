import tensorflow as tf

opt = tf.keras.optimizers.SGD(0.1)
image = tf.random.normal((2, 3))
with tf.GradientTape() as tape:
    tape.watch(image)
    score = tf.reduce_sum(tf.sin(image))
grad = tape.gradient(score, image)
opt.apply_gradients(zip(grad, image))  # <- GT013
result = grad
