import tensorflow as tf
import tensorflow_probability as tfp

tfd = tfp.distributions
tfb = tfp.bijectors
dims = 2
made = tfb.AutoregressiveNetwork(params=2, hidden_units=[32, 32])
bij = tfb.MaskedAutoregressiveFlow(shift_and_log_scale_fn=made)
maf = tfd.TransformedDistribution(distribution=tfd.Sample(tfd.Normal(loc=0., scale=1.), sample_shape=[dims]),
                                  bijector=bij)
x = tf.random.normal((16, dims))
optimizer = tf.keras.optimizers.Adam(1e-3)
with tf.GradientTape() as tape:
    loss = -tf.reduce_mean(maf.log_prob(x))
grads = tape.gradient(loss, made.trainable_variables)
optimizer.apply_gradients(zip(grads, made.trainable_variables))
result = grads
