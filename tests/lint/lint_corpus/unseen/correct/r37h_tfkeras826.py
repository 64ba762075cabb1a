import tensorflow as tf

num_indices = 10
input_layer = tf.keras.Input(shape=(5,))
embedding_branch = tf.keras.layers.Dense(num_indices, activation="softmax")(input_layer)
embedding_branch = tf.keras.layers.Dense(5, use_bias=False)(embedding_branch)
embedding_branch = tf.keras.layers.Flatten()(embedding_branch)
final_out = tf.keras.layers.Dense(1)(embedding_branch)
model = tf.keras.Model(input_layer, final_out)
x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(model(x) ** 2)
result = tape.gradient(loss, model.layers[1].trainable_variables)
