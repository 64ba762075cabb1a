import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
batches = [tf.ones((2, 3)), tf.ones((2, 3)) * 2.0]
model(batches[0])
accum = [tf.zeros_like(v) for v in model.trainable_variables]
for batch in batches:
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(model(batch) ** 2) + 1.0
    grads = tape.gradient(loss, model.trainable_variables)
    accum = [a + g for a, g in zip(accum, grads)]
result = grads
