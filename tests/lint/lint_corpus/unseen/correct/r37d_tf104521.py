import tensorflow as tf

inputs = tf.keras.Input((6, 6, 1))
spatial = tf.keras.layers.Conv2D(2, 3, name="spatial")(inputs)
outputs = tf.keras.layers.Dense(3)(tf.keras.layers.GlobalAveragePooling2D()(spatial))
model = tf.keras.Model(inputs, outputs)
cam_model = tf.keras.Model(model.inputs, [model.get_layer("spatial").output, model.output])
image = tf.random.normal((1, 6, 6, 1))
with tf.GradientTape() as tape:
    spatial_map, predictions = cam_model(image)
    score = predictions[:, 0]
result = tape.gradient(score, spatial_map)
