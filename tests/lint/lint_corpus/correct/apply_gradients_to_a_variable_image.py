import tensorflow as tf

opt = tf.keras.optimizers.SGD(0.1)
image = tf.Variable(tf.random.normal((2, 3)))
with tf.GradientTape() as tape:
    score = tf.reduce_sum(tf.sin(image))
grads = tape.gradient(score, [image])
opt.apply_gradients(zip(grads, [image]))
result = grads
