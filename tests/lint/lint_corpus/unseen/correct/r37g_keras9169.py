import tensorflow as tf

M = 4


def decodeSignal(x):
    Y = tf.nn.softmax(x)
    return Y


input_layer = tf.keras.Input((M,))
relay = tf.keras.layers.Dense(M, activation="relu")(input_layer)
relay = tf.keras.layers.Dense(M)(relay)
relay_softmax = tf.keras.layers.Lambda(decodeSignal, output_shape=(M,))(relay)
model = tf.keras.Model(input_layer, relay_softmax)
onehot_symbols = tf.one_hot([0, 1, 2, 3, 1, 0], depth=M)
loss_fn = tf.keras.losses.CategoricalCrossentropy()
with tf.GradientTape() as tape:
    loss = loss_fn(onehot_symbols, model(onehot_symbols))
result = tape.gradient(loss, model.trainable_variables)
