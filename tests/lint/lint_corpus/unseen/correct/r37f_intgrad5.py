import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((5,), dtype="int32"), tf.keras.layers.Embedding(20, 4),
                             tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(2)])
embedding, pooling, head = model.layers
ids = tf.constant([[3, 7, 1, 0, 12]])
vectors = embedding(ids)
with tf.GradientTape() as tape:
    tape.watch(vectors)
    score = head(pooling(vectors))[:, 1]
result = tape.gradient(score, vectors)
