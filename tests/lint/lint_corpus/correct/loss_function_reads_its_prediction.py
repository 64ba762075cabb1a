import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
x = tf.constant([[1.0, 2.0], [0.5, -1.0], [2.0, 0.0]])
y = tf.constant([[1.0], [-1.0], [1.0]])
scores_seen = tf.constant([[0.3], [0.2], [-0.4]])


def hinge(labels, scores):
    margin = labels * scores
    violation = tf.nn.relu(1.0 - margin)
    drift = tf.reduce_mean(tf.abs(scores_seen))
    return tf.reduce_mean(violation) + 0.0 * drift


with tf.GradientTape() as tape:
    loss = hinge(y, model(x))
result = tape.gradient(loss, model.trainable_variables)
