import tensorflow as tf

x = tf.constant(2.0)
with tf.GradientTape(persistent=True) as tape:
    tape.watch(x)
    outs = [x ** 2, x ** 3]
names = ["square", "cube"]
result = [tape.gradient(o, x) for name, o in zip(names, outs)]
