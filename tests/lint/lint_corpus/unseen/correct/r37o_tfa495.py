import tensorflow as tf

learn_rate = 1e-3
lmbda = 1e-4
w = tf.Variable(tf.random.normal((4, 1)))
x = tf.random.normal((16, 4))
y = tf.random.normal((16, 1))
with tf.GradientTape() as tape:
    cost_list = tf.square(tf.matmul(x, w) - y)
    joint_loss = tf.reduce_mean(input_tensor=tf.reduce_sum(input_tensor=cost_list))
optim = tf.keras.optimizers.AdamW(learning_rate=learn_rate, weight_decay=lmbda)
var_list = [w]
grads = tape.gradient(joint_loss, var_list)
optim.apply_gradients(zip(grads, var_list))
result = grads
