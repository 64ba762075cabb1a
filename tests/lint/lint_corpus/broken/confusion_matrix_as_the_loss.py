import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((8, 3))
labels = tf.constant([0, 1, 1, 0, 1, 0, 0, 1])
with tf.GradientTape() as tape:
    scores = tf.sigmoid(model(x))[:, 0]
    cm = tf.math.confusion_matrix(labels, scores, num_classes=2)  # <- GT010
    accuracy = tf.cast(cm[0, 0] + cm[1, 1], tf.float32) / 8.0
    loss = 1.0 - accuracy
result = tape.gradient(loss, model.trainable_variables)
