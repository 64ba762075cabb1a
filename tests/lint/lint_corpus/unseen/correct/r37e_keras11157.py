import tensorflow as tf
from tensorflow.keras import backend as K

model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4)])
x = tf.random.normal((5, 3))
y = tf.constant([0.0, 1.0, 2.0, 3.0, 1.0])
with tf.GradientTape() as tape:
    pred = K.sum(K.softmax(model(x)) * tf.range(4.0), axis=-1)
    loss = K.mean(K.square(pred - y))
result = tape.gradient(loss, model.trainable_variables)
