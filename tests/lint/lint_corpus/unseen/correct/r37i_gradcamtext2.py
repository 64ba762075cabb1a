import tensorflow as tf

inputs = tf.keras.Input((5,))
hidden = tf.keras.layers.Dense(4, name="conv")(inputs)
outputs = tf.keras.layers.Dense(2)(hidden)
model = tf.keras.Model(inputs, outputs)
grad_model = tf.keras.Model(model.inputs, [model.get_layer("conv").output, model.output])
x = tf.random.normal((1, 5))
with tf.GradientTape() as tape:
    layers_wt, preds = grad_model(x)
    target = preds[:, 0]
grads = tape.gradient(target, layers_wt)[0]
result = grads
