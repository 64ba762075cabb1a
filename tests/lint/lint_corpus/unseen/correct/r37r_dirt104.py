import numpy as np
import tensorflow as tf


class RenderLayer(tf.keras.layers.Layer):
    def __init__(self, vertex_colors, **kwargs):
        super().__init__(**kwargs)
        self.colors = vertex_colors

    def call(self, vertices):
        weights = tf.nn.softmax(-tf.reduce_sum(vertices ** 2, axis=-1), axis=0)
        return tf.reduce_sum(weights[:, None] * (self.colors + 1), axis=0)


class Model(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.vertex_colors = tf.Variable(np.random.rand(8, 3).astype('float32'), trainable=True)
        self.renderer_color = RenderLayer(self.vertex_colors, name='render_color_layer')

    def call(self, vertices):
        return self.renderer_color(tf.stop_gradient(vertices))


model = Model()
vertices = tf.random.normal((8, 3))
with tf.GradientTape() as tape:
    loss = tf.reduce_sum(tf.square(model(vertices) - 0.5))
result = tape.gradient(loss, model.vertex_colors)
