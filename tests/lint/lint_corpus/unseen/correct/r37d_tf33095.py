import tensorflow as tf

teacher = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
student = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
x = tf.random.normal((4, 3))
with tf.GradientTape() as tape:
    target = tf.stop_gradient(teacher(x))
    loss = tf.reduce_mean((student(x) - target) ** 2)
result = tape.gradient(loss, student.trainable_variables)
