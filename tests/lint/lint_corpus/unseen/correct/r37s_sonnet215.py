import numpy as np
import tensorflow as tf


class Model(tf.Module):
    def __init__(self):
        super().__init__()
        self.w_a = tf.Variable(tf.random.normal([4, 1]), name="w_a")
        self.w_b = tf.Variable(tf.random.normal([4, 1]), name="w_b")

    def __call__(self, x, task):
        return tf.matmul(x, self.w_a if task == "a" else self.w_b)


model = Model()
optimizer = tf.keras.optimizers.SGD(0.1)
x, y = np.random.rand(8, 4).astype("float32"), np.random.rand(8, 1).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x, "a") - y))
variables = [model.w_a]
grads = tape.gradient(loss, variables)
grads = tf.distribute.get_replica_context().all_reduce(tf.distribute.ReduceOp.MEAN, grads)
optimizer.apply_gradients(zip(grads, variables))
result = grads
