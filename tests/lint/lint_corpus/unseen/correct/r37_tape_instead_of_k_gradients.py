import tensorflow as tf
from tensorflow.keras import backend as K

model = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
dream = tf.Variable(tf.ones((1, 4)))
with tf.GradientTape() as tape:
    loss = K.mean(model(dream)[:, 1])
result = tape.gradient(loss, dream)
