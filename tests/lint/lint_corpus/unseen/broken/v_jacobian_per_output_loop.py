import tensorflow as tf

x = tf.constant([1.0, 2.0])
with tf.GradientTape() as tape:  # <- GT006
    tape.watch(x)
    outs = [tf.sin(x), tf.cos(x)]
result = []
for o in outs:
    result.append(tape.jacobian(o, x))
