import tensorflow as tf

vocab = 6
embedding = tf.keras.layers.Embedding(vocab, 4)
cell = tf.keras.layers.GRUCell(8)
output_layer = tf.keras.layers.Dense(vocab, activation="softmax")
targets = tf.one_hot([[1, 2, 3], [4, 5, 0]], vocab)
with tf.GradientTape() as tape:
    input_ = embedding(tf.zeros((2,), tf.int32))
    state = [tf.zeros((2, 8))]
    outputs = []
    for t in range(3):
        o_t, state = cell(input_, state)
        o_t = output_layer(o_t)
        outputs.append(o_t)
        input_ = tf.matmul(o_t, embedding.embeddings)
    loss = tf.reduce_mean(tf.keras.losses.categorical_crossentropy(targets, tf.stack(outputs, axis=1)))
variables = embedding.trainable_variables + cell.trainable_variables + output_layer.trainable_variables
result = tape.gradient(loss, variables)
