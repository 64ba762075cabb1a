import tensorflow as tf

base = tf.keras.Sequential([tf.keras.Input((5,)), tf.keras.layers.Dense(4, activation="relu")], name="base")
head = tf.keras.layers.Dense(2)
model = tf.keras.Sequential([tf.keras.Input((5,)), base, head])
x = tf.random.normal((3, 5))
with tf.GradientTape() as tape:
    features = base(x)
    tape.watch(features)
    total_loss = tf.reduce_sum(head(features) ** 2)
result = tape.gradient(total_loss, features)
