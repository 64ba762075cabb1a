import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
copy = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.ones((4, 3))
with tf.GradientTape() as tape:
    copy.set_weights(model.get_weights())
    loss = tf.reduce_sum(copy(x) ** 2)
result = tape.gradient(loss, copy.trainable_variables)
