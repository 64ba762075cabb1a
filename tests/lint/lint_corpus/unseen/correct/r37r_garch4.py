import numpy as np
import tensorflow as tf


class MGARCH_DCC(tf.keras.Model):
    def __init__(self, y):
        super().__init__()
        self.MU = self.add_weight(shape=(y.shape[1],), initializer=lambda shape, dtype: np.mean(y, 0))
        self.sigma0 = self.add_weight(shape=(y.shape[1],), initializer=lambda shape, dtype: np.std(y, 0))

    def get_log_probs(self, y):
        return -0.5 * ((y - self.MU) / self.sigma0) ** 2 - tf.math.log(self.sigma0)

    def train_step(self, data):
        x, y = data
        with tf.GradientTape() as tape:
            loss = -tf.math.reduce_mean(self.get_log_probs(y))
        trainable_vars = self.trainable_weights
        gradients = tape.gradient(loss, trainable_vars)
        self.optimizer.apply_gradients(zip(gradients, trainable_vars))
        return gradients


returns = np.float32(np.random.randn(60, 2) * 0.01)
train, test = returns[:-10], tf.constant(returns[-10:])
model = MGARCH_DCC(train)
model.compile(optimizer=tf.keras.optimizers.Adam(learning_rate=1e-2))
result = model.train_step((test, test))
