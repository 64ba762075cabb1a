import numpy as np
import tensorflow as tf


def l(x):
    x = tf.cast(x, tf.float32)
    w = tf.Variable(tf.random.normal((64, 8), name="embed_w"))
    b = tf.Variable(tf.random.normal((8,), name="embed_w"))
    return tf.matmul(x, w + w) + b, (w, b)


x = np.random.randn(100, 64)
y = np.random.randint(high=8, low=0, size=100)
opt = tf.keras.optimizers.Adam()
with tf.GradientTape() as tape:
    logits, v = l(x)
    loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=np.array(y), logits=logits)
gradients = tape.gradient(loss, v)
opt.apply_gradients(zip(gradients, v))
result = gradients
