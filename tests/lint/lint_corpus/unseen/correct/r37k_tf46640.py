import numpy as np
import tensorflow as tf


class SelfF1(tf.keras.metrics.Metric):
    def __init__(self, name="self_f1", **kwargs):
        super().__init__(name=name, **kwargs)
        self.f1_value = self.add_weight(name="sf", initializer="zeros")

    def update_state(self, y_true, y_pred, sample_weight=None):
        y_pred = tf.argmax(y_pred, axis=1)
        hits = tf.reduce_mean(tf.cast(tf.equal(y_true, y_pred), tf.float32))
        self.f1_value.assign(hits)

    def result(self):
        return self.f1_value


model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
metric = SelfF1()
x = tf.random.normal((6, 4))
y = tf.constant([0, 1, 2, 0, 1, 2], dtype=tf.int64)


@tf.function
def train_step(x, y):
    with tf.GradientTape() as tape:
        logits = model(x)
        loss = tf.reduce_mean(tf.keras.losses.sparse_categorical_crossentropy(y, logits, from_logits=True))
    grads = tape.gradient(loss, model.trainable_variables)
    metric.update_state(y, logits)
    return grads


result = train_step(x, y)
