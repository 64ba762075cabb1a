import tensorflow as tf


@tf.function
def train(opt, input):
    with tf.GradientTape() as tape:
        loss = tf.reduce_mean(input)
    gradients = tape.gradient(loss, [input])
    opt.apply_gradients(zip(gradients, [input]))
    return gradients


opt = tf.keras.optimizers.Adam(learning_rate=1.0)
input = tf.Variable(tf.random.normal((1, 1)))

result = train(opt, input)
