import tensorflow as tf

inputs = tf.keras.Input((6,))
codes = tf.keras.layers.Dense(3, activation="relu")(inputs)
reconstruction = tf.keras.layers.Dense(6)(codes)


class SparsityPenalty(tf.keras.layers.Layer):
    def call(self, x):
        out, c = x
        self.add_loss(1e-3 * tf.reduce_mean(tf.abs(c)))
        return out


model = tf.keras.Model(inputs, SparsityPenalty()([reconstruction, codes]))
data = tf.random.normal((4, 6))
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(data) - data)) + tf.add_n(model.losses)
result = tape.gradient(loss, model.trainable_variables)
