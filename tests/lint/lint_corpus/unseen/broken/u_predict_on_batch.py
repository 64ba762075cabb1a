import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input(shape=(2,)), tf.keras.layers.Dense(1)])
xb = tf.constant([[1.0, 1.0]])
with tf.GradientTape() as tape:
    yb = net.predict_on_batch(xb)  # <- GT002
    loss = tf.reduce_sum(yb)
result = tape.gradient(loss, net.trainable_weights)
