import tensorflow as tf

encoder_kernel = tf.Variable(tf.random.normal((6, 3)), name="encoder_0/kernel")
decoder_kernel = tf.Variable(tf.random.normal((3, 6)), name="decoder_0/kernel")
optimizer = tf.compat.v1.train.AdamOptimizer(0.001)
x = tf.random.normal((8, 6))


def loss():
    return tf.reduce_mean(tf.square(tf.matmul(tf.nn.relu(tf.matmul(x, encoder_kernel)), decoder_kernel) - x))


train_op = optimizer.minimize(loss=loss, var_list=[encoder_kernel, decoder_kernel])
result = [encoder_kernel, decoder_kernel]
