import tensorflow as tf


def SoftMax():
    return tf.keras.layers.Lambda(lambda q: tf.nn.softmax(q, axis=2))


inputs1 = tf.keras.Input(shape=(1, 1))
d = tf.keras.layers.Dense(3)(inputs1)
out = SoftMax()(d)
model = tf.keras.Model(inputs=[inputs1], outputs=[out])
x = tf.ones((100, 1, 1))
y = tf.constant([[1.0, 0.0, 0.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.abs(y - model(x)[:, 0]))
result = tape.gradient(loss, model.trainable_variables)
