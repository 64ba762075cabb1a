import itertools
import tensorflow as tf

find_code = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(3, activation="sigmoid")])
input_bit = tf.constant([list(k) for k in itertools.product([0.0, 1.0], repeat=2)])
with tf.GradientTape() as tape:
    code_out = find_code(input_bit)
    distances = []
    for i in range(0, 3):
        for j in range(i + 1, 3):
            distances.append(tf.linalg.norm(code_out[i] - code_out[j]))
    loss = -tf.reduce_min(distances)
result = tape.gradient(loss, find_code.trainable_variables)
