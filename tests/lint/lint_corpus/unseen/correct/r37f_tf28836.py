import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
cross_entropy = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
cnn_optimizer = tf.keras.optimizers.Adam(0.01)


@tf.function
def train_step(images, labels):
    with tf.GradientTape() as cnn_tape:
        logits = model(images)
        loss = cross_entropy(labels, logits)
    gradient_of_cnn = cnn_tape.gradient(loss, model.trainable_variables)
    cnn_optimizer.apply_gradients(zip(gradient_of_cnn, model.trainable_variables))
    return gradient_of_cnn


images = tf.random.normal((5, 4))
labels = tf.constant([0, 1, 2, 1, 0])
result = train_step(images, labels)
