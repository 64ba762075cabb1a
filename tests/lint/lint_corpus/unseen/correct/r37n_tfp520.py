import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors
made = tfb.AutoregressiveNetwork(params=2, hidden_units=[16, 16])
iaf = tfd.TransformedDistribution(
    distribution=tfd.Sample(tfd.Normal(loc=0., scale=1.), sample_shape=[5]),
    bijector=tfb.Invert(tfb.MaskedAutoregressiveFlow(shift_and_log_scale_fn=made)))
target_dist = tfd.Normal(loc=2.2, scale=0.23)
y = tf.reshape(target_dist.sample(1000), shape=[200, 5])
optimizer = tf.keras.optimizers.Adam(1e-4)
with tf.GradientTape() as tape:
    loss = -tf.reduce_mean(iaf.log_prob(y))
grads = tape.gradient(loss, made.trainable_variables)
optimizer.apply_gradients(zip(grads, made.trainable_variables))
result = grads
