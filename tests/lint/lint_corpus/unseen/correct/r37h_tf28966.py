import tensorflow as tf


class SparseDense(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.n_in = input_shape[-1]
        self.values = self.add_weight(shape=(3,), initializer="random_normal")
        self.bias = self.add_weight(shape=(2,), initializer="zeros")

    def call(self, inputs):
        kernel = tf.sparse.SparseTensor([[0, 0], [1, 1], [2, 0]], self.values, (self.n_in, 2))
        return tf.transpose(tf.sparse.sparse_dense_matmul(kernel, inputs, adjoint_a=True,
                                                          adjoint_b=True)) + self.bias


layer = SparseDense()
x = tf.random.normal((2, 3))
layer(x)
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(layer(x) ** 2)
result = tape.gradient(loss, [layer.values])
