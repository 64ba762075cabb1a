import tensorflow as tf


class SAM():
    def __init__(self, base_optimizer, rho=0.05):
        self.rho = rho
        self.base_optimizer = base_optimizer

    def first_step(self, gradients, trainable_variables):
        self.e_ws = []
        grad_norm = tf.linalg.global_norm(gradients)
        for i in range(len(trainable_variables)):
            e_w = tf.convert_to_tensor(gradients[i]) * self.rho / (grad_norm + 1e-12)
            trainable_variables[i].assign_add(e_w)
            self.e_ws.append(e_w)


model = tf.keras.Sequential([tf.keras.Input((5,), dtype="int32"), tf.keras.layers.Embedding(20, 4),
                             tf.keras.layers.Flatten(), tf.keras.layers.Dense(1)])
optimizer = SAM(tf.keras.optimizers.SGD(0.1))
x = tf.constant([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]])
y = tf.constant([[1.0], [0.0]])
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
gradients = tape.gradient(loss, model.trainable_variables)
optimizer.first_step(gradients, model.trainable_variables)
result = gradients
