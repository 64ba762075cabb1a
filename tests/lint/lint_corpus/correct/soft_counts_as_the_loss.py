import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
labels = tf.constant([0.0, 1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0])
with tf.GradientTape() as tape:
    scores = tf.sigmoid(model(x))[:, 0]
    soft_correct = tf.reduce_sum(labels * scores + (1 - labels) * (1 - scores))
    accuracy = soft_correct / 8.0
    loss = 1.0 - accuracy
result = tape.gradient(loss, model.trainable_variables)
