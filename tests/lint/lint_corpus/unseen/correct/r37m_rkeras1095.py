import tensorflow as tf

model = tf.keras.Sequential([tf.keras.Input((8, 8, 3)), tf.keras.layers.Conv2D(4, 3, name="mixed2"),
                             tf.keras.layers.Conv2D(4, 3, name="mixed3")])
layer_contributions = {"mixed2": 0.2, "mixed3": 3.0}
features = tf.keras.Model(model.inputs, [model.get_layer(name).output for name in layer_contributions])
dream = tf.Variable(tf.random.uniform((1, 8, 8, 3)))
with tf.GradientTape() as tape:
    loss = 0.0
    for coeff, activation in zip(layer_contributions.values(), features(dream)):
        scaling = tf.reduce_prod(tf.cast(tf.shape(activation), "float32"))
        loss = loss + coeff * tf.reduce_sum(tf.square(activation)) / scaling
grads = tape.gradient(loss, dream)
result = grads
