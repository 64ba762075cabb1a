import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((3,), dtype="int32"), tf.keras.layers.Embedding(10, 2),
                             tf.keras.layers.GlobalAveragePooling1D(), tf.keras.layers.Dense(1)])
ids = tf.constant([[1, 2, 3], [4, 5, 6]])
y = tf.constant([[1.0], [0.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(ids) - y))
grads = tape.gradient(loss, model.trainable_variables)
averaged = []
for k in range(len(grads)):
    averaged.append(grads[k] / 2.0)  # <- GT029
result = averaged
