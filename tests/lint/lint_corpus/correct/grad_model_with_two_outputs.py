import tensorflow as tf

inputs = tf.keras.Input((5,))
code = tf.keras.layers.Dense(3, activation="tanh", name="code")(inputs)
outputs = tf.keras.layers.Dense(2)(code)
classifier = tf.keras.Model(inputs, outputs)
grad_model = tf.keras.Model(classifier.inputs, [classifier.get_layer("code").output, classifier.output])
x = tf.random.normal((4, 5))
with tf.GradientTape() as tape:
    features, predictions = grad_model(x)
    loss = tf.reduce_mean(predictions ** 2)
result = tape.gradient(loss, features)
