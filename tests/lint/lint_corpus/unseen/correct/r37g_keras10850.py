import tensorflow as tf

sub_cnn_model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)),
                                     tf.keras.layers.Conv2D(3, 3, activation="relu", name="subconv1"),
                                     tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)), tf.keras.layers.Lambda(lambda x: x, name="pre_processing"),
                             sub_cnn_model, tf.keras.layers.Lambda(lambda x: x, name="post_processing")])
images = tf.random.uniform((2, 28, 28, 1))
with tf.GradientTape() as tape:
    pre = model.get_layer("pre_processing")(images)
    conv_output = sub_cnn_model.get_layer("subconv1")(pre)
    flat = sub_cnn_model.layers[1](conv_output)
    output = model.get_layer("post_processing")(sub_cnn_model.layers[2](flat))
result = tape.gradient(output, conv_output)
