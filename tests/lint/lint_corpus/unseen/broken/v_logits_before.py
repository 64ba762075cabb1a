import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(3)])
x = tf.random.normal((2, 4), seed=1)
labels = tf.constant([0, 2])
logits = model(x)  # <- GT007
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(labels, logits, from_logits=True))
result = tape.gradient(loss, model.trainable_variables)
