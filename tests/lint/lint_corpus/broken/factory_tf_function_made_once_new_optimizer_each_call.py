import tensorflow as tf

w = tf.Variable([1.0, 2.0])
x = tf.constant([3.0, 4.0])


def make_train_step(weights):
    @tf.function
    def train_step(batch, opt):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(tf.square(weights * batch))
        grads = tape.gradient(loss, [weights])
        opt.apply_gradients(zip(grads, [weights]))
        return grads
    return train_step


train_step = make_train_step(w)
for trial in range(2):
    opt = tf.keras.optimizers.RMSprop(0.01)  # <- GT020
    result = train_step(x, opt)
