import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Flatten(), tf.keras.layers.Dense(10)])
cnn_optimizer = tf.keras.optimizers.Adam(1e-4)


def train_step(images, labels):
    with tf.GradientTape() as cnn_tape:
        logits = model(images)
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True))
    gradient_of_cnn = cnn_tape.gradient(loss, model.trainable_variables)
    cnn_optimizer.apply_gradients(zip(gradient_of_cnn, model.trainable_variables))
    return gradient_of_cnn


train_batch = tf.random.uniform((8, 28, 28, 1))
label_batch = tf.random.uniform((8,), 0, 10, dtype=tf.int32)
result = train_step(train_batch, label_batch)
