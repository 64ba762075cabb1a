import tensorflow as tf

net = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(3)])
train_img = tf.random.normal((2, 4))
train_tao = tf.constant(2.0)
train_hr = tf.random.normal((2, 3))
with tf.GradientTape() as tape:
    train_output = net(train_img)
    loss = tf.reduce_mean(tf.nn.l2_loss(train_output * train_tao / 2 - train_hr))
result = tape.gradient(loss, net.trainable_variables)
