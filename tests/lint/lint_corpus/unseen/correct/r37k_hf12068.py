import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(6)])
classifier = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(3)])
prompts = tf.random.normal((2, 4))
labels = tf.constant([0, 2])
with tf.GradientTape() as tape:
    logits = generator(prompts)
    texts = tf.nn.softmax(logits, axis=-1)
    preds = classifier(texts)
    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, preds, from_logits=True))
result = tape.gradient(loss, generator.trainable_variables)
