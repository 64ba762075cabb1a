import tensorflow as tf

inputs = tf.keras.Input((6, 6, 3))
conv = tf.keras.layers.Conv2D(4, 3, name="block14_sepconv2_act")(inputs)
outputs = tf.keras.layers.Dense(3, activation="softmax")(tf.keras.layers.GlobalAveragePooling2D()(conv))
model = tf.keras.Model(inputs, outputs)
cam_model = tf.keras.models.Model(model.inputs, [model.get_layer("block14_sepconv2_act").output, model.output])
image = tf.random.normal((1, 6, 6, 3))
with tf.GradientTape() as tape:
    conv_out, predictions = cam_model(image)
    class_out = tf.gather(predictions, tf.argmax(predictions, axis=-1), axis=1, batch_dims=1)
result = tape.gradient(class_out, conv_out)
