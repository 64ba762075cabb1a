import tensorflow as tf


def dice_coe(output, target, loss_type="sorensen", axis=(1, 2, 3), smooth=1e-5):
    inse = tf.reduce_sum(output * target, axis=axis)
    l = tf.reduce_sum(output * output, axis=axis)
    r = tf.reduce_sum(target * target, axis=axis)
    dice = (2. * inse + smooth) / (l + r + smooth)
    return tf.reduce_mean(dice)


v_net = tf.keras.Sequential([tf.keras.Input((8, 8, 1)), tf.keras.layers.Conv2D(2, 3, padding="same")])
images = tf.random.normal((2, 8, 8, 1))
labels = tf.cast(tf.random.uniform((2, 8, 8, 1)) > 0.5, tf.float32)
with tf.GradientTape() as tape:
    logits = v_net(images)
    pred = tf.nn.softmax(logits, axis=-1)[..., 1:]
    sorensen = dice_coe(pred, labels, loss_type="sorensen")
    sorensen_loss = tf.subtract(tf.constant(1.), sorensen)
result = tape.gradient(sorensen_loss, v_net.trainable_variables)
