import numpy as np
import tensorflow as tf

B, L, D, n_top = 2, 6, 8, 3
x = tf.random.normal((B, L, 4))
query_projection = tf.keras.layers.Dense(D)
key_projection = tf.keras.layers.Dense(D)
value_projection = tf.keras.layers.Dense(D)
out_projection = tf.keras.layers.Dense(4)


def update_context(context_in, V, scores, index):
    attn = tf.keras.activations.softmax(scores, axis=-1)
    batch = tf.tile(tf.range(B)[:, None], (1, n_top))
    return tf.tensor_scatter_nd_update(context_in, tf.stack([batch, index], axis=-1), tf.matmul(attn, V))


with tf.GradientTape() as tape:
    Q, K, V = query_projection(x), key_projection(x), value_projection(x)
    M = tf.reduce_max(tf.matmul(Q, K, transpose_b=True), axis=-1)
    index = tf.math.top_k(M, n_top, sorted=False)[1]
    scores_top = tf.matmul(tf.gather(Q, index, batch_dims=1), K, transpose_b=True) / np.sqrt(D)
    context = tf.broadcast_to(tf.reduce_mean(V, axis=-2, keepdims=True), (B, L, D))
    context = update_context(context, V, scores_top, index)
    loss = tf.reduce_mean(tf.square(out_projection(context)))
projections = [query_projection, key_projection, value_projection]
result = tape.gradient(loss, [v for layer in projections for v in layer.trainable_variables])
