import tensorflow as tf


class ThresholdLayer(tf.keras.layers.Layer):
    def build(self, input_shape):
        self.kernel = self.add_weight(name="threshold", shape=(1,), initializer=tf.keras.initializers.Constant(0.2))

    def call(self, x):
        return tf.sigmoid(10.0 * (x - self.kernel))


input_layer = tf.keras.Input((6,))
output = ThresholdLayer()(input_layer)
model = tf.keras.Model(input_layer, output)
data = tf.random.uniform((8, 6))
target = tf.cast(tf.random.uniform((8, 6)) > 0.5, tf.float32)
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(target - model(data)))
result = tape.gradient(loss, model.trainable_variables)
