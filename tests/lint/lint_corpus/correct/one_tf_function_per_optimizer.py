import tensorflow as tf

w = tf.Variable(2.0)
x = tf.constant([-1.0])
y = tf.constant([2.0])
opt1 = tf.keras.optimizers.Adam(learning_rate=1e-2)
opt2 = tf.keras.optimizers.Adam(learning_rate=1e-3)


def train_step(w, x, y, optimizer):
    with tf.GradientTape() as tape:
        loss = tf.reduce_sum(tf.square(w * x - y))
    gradients = tape.gradient(loss, [w])
    optimizer.apply_gradients(zip(gradients, [w]))
    return gradients


train_step_1 = tf.function(train_step)
train_step_2 = tf.function(train_step)
for i in range(4):
    if i % 2 == 0:
        result = train_step_1(w, x, y, opt1)
    else:
        result = train_step_2(w, x, y, opt2)
