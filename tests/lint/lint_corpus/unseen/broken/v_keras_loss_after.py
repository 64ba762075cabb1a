import tensorflow as tf

model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
loss_object = tf.keras.losses.MeanSquaredError()
x = tf.ones((2, 2))
y = tf.zeros((2, 1))
with tf.GradientTape() as tape:
    pred = model(x)
loss = loss_object(y, pred)  # <- GT011
result = tape.gradient(loss, model.trainable_variables)
