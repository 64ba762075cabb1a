import tensorflow as tf

x_train = [1.0, 2.0, 3.0]
y_train = [1.0, 2.0, 3.0]
W = tf.Variable(tf.random.normal([1]), name="weight")
b = tf.Variable(tf.random.normal([1]), name="bias")


@tf.function
def cost():
    y_model = W * x_train + b
    return tf.reduce_mean(tf.square(y_train - y_model))


tf.compat.v1.train.AdamOptimizer(0.01).minimize(cost, var_list=[W, b])
result = [W, b]
