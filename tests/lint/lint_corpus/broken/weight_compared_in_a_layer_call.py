import tensorflow as tf


class Gate(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.level = self.add_weight(name="level", shape=(input_shape[-1],), initializer="zeros")

    def call(self, inputs):
        above = tf.math.less(self.level, inputs)  # <- GT010
        return tf.where(above, tf.ones_like(inputs), tf.zeros_like(inputs))


features = tf.keras.Input((4,))
model = tf.keras.Model(features, Gate()(features))
x = tf.random.normal((6, 4))
y = tf.random.uniform((6, 4))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(y - model(x)))
result = tape.gradient(loss, model.trainable_variables)
