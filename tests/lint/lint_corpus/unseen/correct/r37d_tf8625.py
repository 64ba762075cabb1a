import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(1)])
x = tf.random.normal((8, 5))
y_true = tf.constant([[0.0], [1.0]] * 4)
with tf.GradientTape() as tape:
    y_prob = tf.sigmoid(model(x))
    loss = tf.reduce_mean(tf.abs(y_true - y_prob))
result = tape.gradient(loss, model.trainable_variables)
