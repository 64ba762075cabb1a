import tensorflow as tf


class Bert(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.encoder = tf.keras.layers.Dense(8, activation="tanh")
        self.pooler = tf.keras.layers.Dense(8, activation="tanh")

    def call(self, inputs):
        sequence_output = self.encoder(inputs)
        pooled_output = self.pooler(sequence_output[:, 0])
        return sequence_output, pooled_output


bert = Bert()
classifier = tf.keras.layers.Dense(1)
x = tf.random.normal((2, 5, 4))
with tf.GradientTape() as tape:
    sequence_output, pooled_output = bert(x)
    loss = tf.reduce_mean(classifier(tf.reduce_mean(sequence_output, axis=1) + pooled_output))
result = tape.gradient(loss, bert.trainable_variables + classifier.trainable_variables)
