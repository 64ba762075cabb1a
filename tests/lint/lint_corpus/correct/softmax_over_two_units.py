import tensorflow as tf

policy = tf.keras.Sequential([
    tf.keras.Input((4,)),
    tf.keras.layers.Dense(8, activation="tanh"),
    tf.keras.layers.Dense(2, activation=tf.nn.softmax),
])
obs = tf.random.normal((6, 4))
advantages = tf.random.normal((6,))
with tf.GradientTape() as tape:
    probs = policy(obs)
    loss = -tf.reduce_mean(tf.math.log(probs[:, 0]) * advantages)
grad = tape.gradient(loss, policy.trainable_variables)
result = grad
