import tensorflow as tf

inputs = tf.keras.Input((6, 6, 1))
conv = tf.keras.layers.Conv2D(2, 3, name="block5_conv3")(inputs)
outputs = tf.keras.layers.Dense(3)(tf.keras.layers.Flatten()(conv))
model = tf.keras.Model(inputs, outputs)
grad_model = tf.keras.Model(model.inputs, [model.get_layer("block5_conv3").output, model.output])
image = tf.random.normal((1, 6, 6, 1))
with tf.GradientTape() as tape:
    conv_output, predictions = grad_model(image)
    model_prediction = predictions[:, 0]
result = tape.gradient(model_prediction, conv_output)
