import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.random.normal((4, 3))


def call_model_with_weights(model, x, weights):
    kernel, bias = weights
    return tf.matmul(x, kernel) + bias


weights = [tf.convert_to_tensor(w) for w in model.trainable_weights]
with tf.GradientTape() as tape:
    tape.watch(weights)
    y = call_model_with_weights(model, x, weights)
result = tape.gradient(y, weights)
