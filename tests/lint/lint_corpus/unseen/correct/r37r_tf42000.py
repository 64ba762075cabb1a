import numpy as np
import tensorflow as tf


def build_model():
    return tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(10), tf.keras.layers.Dense(1)])


def compute_loss(batch_true, batch_pred):
    return tf.reduce_mean(tf.keras.losses.mse(batch_true, batch_pred))


def get_apply_grad_fn():
    @tf.function
    def train_step(model, batch_input, batch_label, optimizer):
        with tf.GradientTape() as tape:
            preds = model(batch_input)
            loss = compute_loss(batch_label, preds)
        trainable_variables = model.trainable_variables
        grads = tape.gradient(loss, trainable_variables)
        optimizer.apply_gradients(grads_and_vars=zip(grads, trainable_variables))
        return grads
    return train_step


x, y = np.random.rand(8, 2).astype("float32"), np.random.rand(8, 1).astype("float32")
for random_seed in range(2):
    train_step = get_apply_grad_fn()
    model = build_model()
    optimizer = tf.keras.optimizers.Adam()
    result = train_step(model, x, y, optimizer)
