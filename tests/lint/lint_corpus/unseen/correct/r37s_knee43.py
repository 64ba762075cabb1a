import numpy as np
import tensorflow as tf


class VNet_Small_Relative(tf.keras.Model):
    def __init__(self, num_channels, num_classes, name="vnet_small_relative"):
        super().__init__(name=name)
        self.conv_1 = tf.keras.layers.Dense(num_channels, activation="relu", name="c1")
        self.conv_2 = tf.keras.layers.Dense(num_channels * 2, activation="relu", name="c2")
        self.conv_3 = tf.keras.layers.Dense(num_channels * 4, activation="relu", name="c3")
        self.up_3 = tf.keras.layers.Dense(num_channels * 2, activation="relu", name="cu3")
        self.up_2 = tf.keras.layers.Dense(num_channels, activation="relu", name="cu2")
        self.up_conv2 = tf.keras.layers.Dense(num_channels * 2, activation="relu", name="upc2")
        self.up_conv1 = tf.keras.layers.Dense(num_channels, activation="relu", name="upc1")
        self.conv_1x1 = tf.keras.layers.Dense(num_classes)

    def call(self, inputs):
        x1 = self.conv_1(inputs)
        x2 = self.conv_2(x1)
        x3 = self.conv_3(x2)
        u3 = self.up_3(x3)
        u3 = self.up_conv2(u3)
        u2 = self.up_2(u3)
        u2 = self.up_conv1(u2)
        return self.conv_1x1(u2)


model = VNet_Small_Relative(4, 2)
x, y = np.random.rand(8, 6).astype("float32"), np.random.rand(8, 2).astype("float32")
with tf.GradientTape() as tape:
    loss = tf.reduce_mean(tf.square(model(x) - y))
result = tape.gradient(loss, model.trainable_variables)
