import tensorflow as tf

generator = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(7, activation="softmax")])
discriminator = tf.keras.Sequential([tf.keras.Input((7,)), tf.keras.layers.Dense(1, activation="sigmoid")])
text = tf.random.normal((4, 5))
with tf.GradientTape() as gen_tape:
    predicted_next_word = generator(text, training=True)
    fake_output = discriminator(predicted_next_word, training=True)
    gen_loss = tf.reduce_mean(tf.math.log(1.0 - fake_output + 1e-7))
result = gen_tape.gradient(gen_loss, generator.trainable_variables)
