import numpy as np
import tensorflow as tf

encoder = tf.keras.Sequential([tf.keras.Input((4,)),
                               tf.keras.layers.Dense(3, activity_regularizer=tf.keras.regularizers.L2(0.1))])
encoder.compile(optimizer="adam")
encoder.fit(np.random.rand(8, 4).astype("float32"), epochs=1, verbose=0)
with tf.GradientTape() as tape:
    penalty = tf.reduce_sum(encoder(np.ones((2, 4), "float32")))
result = tape.gradient(penalty, encoder.trainable_variables)
