import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1, use_bias=False)])
optimizer = tf.keras.optimizers.Adam(0.1)
data = tf.constant([[1.0], [2.0]])
for epoch in range(2):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean((model(data) - 3.0) ** 2)
    grads = tape.gradient(loss, model.trainable_variables)
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
result = grads
