import tensorflow as tf

params = {"w": tf.Variable(2.0), "b": tf.Variable(1.0)}
with tf.GradientTape() as tape:
    y = params["w"] * 3.0 + params["b"] ** 2
grads = tape.gradient(y, params)
result = list(grads.values())
