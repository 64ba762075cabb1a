import tensorflow as tf
import tensorflow_probability as tfp

tfb, tfd = tfp.bijectors, tfp.distributions
flow = tfb.RealNVP(num_masked=1, shift_and_log_scale_fn=tfb.real_nvp_default_template(hidden_layers=[8]))
density = tfd.TransformedDistribution(tfd.MultivariateNormalDiag(loc=[0.0, 0.0]), flow)
points = tf.random.normal((32, 2))
with tf.GradientTape() as tape:
    nll = -tf.reduce_mean(density.log_prob(points))
result = tape.gradient(nll, density.trainable_variables)  # <- GT021
tf.keras.optimizers.Adam(1e-3).apply_gradients(zip(result, density.trainable_variables))
