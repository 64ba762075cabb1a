import tensorflow as tf


class Pick(tf.keras.layers.Layer):
    def call(self, scores, training=None):
        weights = tf.nn.softmax(scores, axis=-1)
        return tf.reduce_sum(weights * tf.range(3, dtype=tf.float32), axis=-1)


head = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3), Pick()])
x = tf.random.normal((5, 4))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(head(x))
result = tape.gradient(loss, head.trainable_variables)
